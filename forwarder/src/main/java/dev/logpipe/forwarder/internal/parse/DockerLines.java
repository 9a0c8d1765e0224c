package dev.logpipe.forwarder.internal.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.logpipe.forwarder.internal.time.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import java.io.IOException;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * Docker's json-file format: {@code {"log":"message\n","stream":"stdout","time":"2026-12-01T08:00:00.1Z"}}.
 * A {@code log} value without its trailing newline is a piece: Docker splits lines longer than 16 KiB
 * into several such lines. Other keys ({@code attrs}) are ignored.
 */
public final class DockerLines extends ContainerLines {
    private final JsonFactory factory = new JsonFactory();
    private final TimeParser rfc3339 = TimeLayout.RFC3339.newParser(ZoneOffset.UTC, null, InstantSource.system());
    private byte[] scratch = new byte[1024];
    private final byte[] timeBytes = new byte[64];

    public DockerLines(int maxBytes) {
        super(maxBytes);
    }

    @Override
    protected boolean decode(byte[] b, int off, int len) {
        boolean haveLog = false;
        int s = 0;
        long t = TimeParser.NONE;
        try (JsonParser p = factory.createParser(b, off, len)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                switch (name) {
                    case "log" -> {
                        if (v != JsonToken.VALUE_STRING) {
                            return false;
                        }
                        utf8(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
                        haveLog = true;
                    }
                    case "stream" -> {
                        String st = v == JsonToken.VALUE_STRING ? p.getText() : "";
                        s = st.equals("stdout") ? Emitter.STDOUT : st.equals("stderr") ? Emitter.STDERR : 0;
                    }
                    case "time" -> {
                        if (v == JsonToken.VALUE_STRING && p.getTextLength() <= timeBytes.length) {
                            char[] c = p.getTextCharacters();
                            int o = p.getTextOffset();
                            int n = p.getTextLength();
                            for (int i = 0; i < n; i++) {
                                timeBytes[i] = (byte) (c[o + i] < 0x80 ? c[o + i] : '?');
                            }
                            t = rfc3339.parse(timeBytes, 0, n);
                        }
                    }
                    default -> p.skipChildren();
                }
            }
            if (p.currentToken() != JsonToken.END_OBJECT || p.nextToken() != null) {
                return false;
            }
        } catch (IOException e) {
            return false;
        }
        if (!haveLog || s == 0) {
            return false;
        }
        stream = s;
        time = t;
        content = scratch;
        contentOff = 0;
        partial = contentLen == 0 || scratch[contentLen - 1] != '\n';
        if (!partial) {
            contentLen--;
            if (contentLen > 0 && scratch[contentLen - 1] == '\r') {
                contentLen--;
            }
        }
        return true;
    }

    /** The log value as UTF-8 into {@code scratch} (lone surrogates become U+FFFD). */
    private void utf8(char[] c, int off, int len) {
        if (scratch.length < len * 3) {
            scratch = Arrays.copyOf(scratch, Math.max(len * 3, scratch.length * 2));
        }
        byte[] a = scratch;
        int p = 0;
        int end = off + len;
        for (int i = off; i < end; i++) {
            char ch = c[i];
            if (ch < 0x80) {
                a[p++] = (byte) ch;
            } else {
                p = JsonChars.utf8(c, i, end, a, p);
                if (JsonChars.isPair(c, i, end)) {
                    i++;
                }
            }
        }
        contentLen = p;
    }
}
