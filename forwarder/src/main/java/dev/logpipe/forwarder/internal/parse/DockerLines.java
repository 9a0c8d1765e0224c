package dev.logpipe.forwarder.internal.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.logpipe.forwarder.config.TimeLayout;
import dev.logpipe.forwarder.internal.time.TimeParser;
import dev.logpipe.forwarder.internal.time.TimeParsers;
import dev.logpipe.record.Utf8;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.util.Arrays;

/**
 * Docker's json-file format: {@code {"log":"message\n","stream":"stdout","time":"2026-12-01T08:00:00.1Z"}}.
 * A {@code log} value without its trailing newline is a piece: Docker splits lines longer than 16 KiB
 * into several such lines. Other keys ({@code attrs}) are ignored. A line written exactly as Docker writes it
 * (those three keys in that order, no spaces, no {@code \\u} escape) is read straight from its bytes; any other
 * line is read by Jackson, which alone decides what is not in the format.
 */
public final class DockerLines extends ContainerLines {
    private final JsonFactory factory = new JsonFactory();
    private final TimeParser rfc3339 = TimeParsers.of(TimeLayout.RFC3339, ZoneOffset.UTC, null, InstantSource.system());
    private byte[] scratch = new byte[1024];
    private final byte[] timeBytes = new byte[64];

    public DockerLines(int maxBytes) {
        super(maxBytes);
    }

    @Override
    protected boolean decode(byte[] b, int off, int len) {
        return asWritten(b, off, len) || parsed(b, off, len);
    }

    private static final byte[] LOG = ascii("{\"log\":\"");
    /** What follows the log's closing quote. */
    private static final byte[] STDOUT_TIME = ascii(",\"stream\":\"stdout\",\"time\":\"");

    private static final byte[] STDERR_TIME = ascii(",\"stream\":\"stderr\",\"time\":\"");

    /** The line as Docker writes it, read without a parser; false: read it with Jackson (nothing is decided). */
    boolean asWritten(byte[] b, int off, int len) {
        int end = off + len;
        if (!startsWith(b, off, end, LOG)) {
            return false;
        }
        int i = unescapeLog(b, off + LOG.length, end);
        if (i < 0) {
            return false;
        }
        int s;
        if (startsWith(b, i, end, STDOUT_TIME)) {
            s = Emitter.STDOUT;
        } else if (startsWith(b, i, end, STDERR_TIME)) {
            s = Emitter.STDERR;
        } else {
            return false;
        }
        i += STDOUT_TIME.length;
        int closing = end - 2; // the time's closing quote, then the closing brace
        if (closing < i || b[closing] != '"' || b[end - 1] != '}') {
            return false;
        }
        for (int k = i; k < closing; k++) {
            if (b[k] < 0x20 || b[k] == '"' || b[k] == '\\') { // negative: not ASCII
                return false;
            }
        }
        int n = closing - i;
        found(s, n <= timeBytes.length ? rfc3339.parse(b, i, n) : TimeParser.NONE);
        return true;
    }

    /**
     * The {@code log} string's content from {@code i} on, unescaped into {@link #scratch} ({@link #contentLen});
     * the index after its closing quote, or -1 for anything Jackson must read ({@code \\u} escapes, control
     * characters, ill-formed UTF-8, no closing quote).
     */
    private int unescapeLog(byte[] b, int i, int end) {
        if (scratch.length < end - i) {
            scratch = Arrays.copyOf(scratch, Math.max(end - i, scratch.length * 2));
        }
        byte[] a = scratch;
        int p = 0;
        while (true) {
            int q = ByteScan.firstSpecial(b, i, end);
            System.arraycopy(b, i, a, p, q - i);
            p += q - i;
            if (q >= end) {
                return -1;
            }
            byte c = b[q];
            if (c == '"') {
                contentLen = p;
                return q + 1;
            }
            if (c == '\\') {
                int u = q + 1 < end ? unescaped(b[q + 1]) : -1;
                if (u < 0) {
                    return -1; // \\u, or not an escape
                }
                a[p++] = (byte) u;
                i = q + 2;
            } else if (c < 0) {
                int n = Utf8.sequenceLength(b, q, end);
                if (n == 0) {
                    return -1;
                }
                System.arraycopy(b, q, a, p, n);
                p += n;
                i = q + n;
            } else {
                return -1; // a control character
            }
        }
    }

    /** The byte a JSON escape {@code \\e} stands for, or -1 ({@code \\u} and invalid escapes). */
    private static int unescaped(byte e) {
        return switch (e) {
            case 'n' -> '\n';
            case 't' -> '\t';
            case 'r' -> '\r';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case '"', '\\', '/' -> e;
            default -> -1;
        };
    }

    private static boolean startsWith(byte[] b, int i, int end, byte[] prefix) {
        return end - i >= prefix.length && Arrays.equals(b, i, i + prefix.length, prefix, 0, prefix.length);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The line read by Jackson: every line the fast path does not take, and tests, to compare the two. */
    boolean parsed(byte[] b, int off, int len) {
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
        found(s, t);
        return true;
    }

    /** The line was read: its log is {@code scratch[0, contentLen)}. */
    private void found(int s, long t) {
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
