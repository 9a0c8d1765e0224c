package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.internal.time.TimeParser;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * {@code parser.format: logfmt}: {@code key=value key2="quoted \"value\""} pairs separated by spaces. Quoted
 * values understand {@code \" \\ \n \r \t}; a key without {@code =} is the boolean {@code true}. Every value
 * is a string (logfmt has no types). A line without any {@code key=value} pair, with an unterminated quote, or
 * with a quote inside a key is an error.
 */
public final class LogfmtLineReader extends StructuredReader {
    private final String[] names = new String[256];
    private final byte[][] nameBytes = new byte[256][];
    private byte[] value = new byte[256];

    public LogfmtLineReader(KeyMapping keys, String timeKey, TimeParser time) {
        super(new KeyRoles(keys, timeKey), time);
    }

    @Override
    boolean parse(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        int pairs = 0;
        while (true) {
            while (i < end && (b[i] == ' ' || b[i] == '\t')) {
                i++;
            }
            if (i >= end) {
                break;
            }
            int k = i;
            while (i < end && b[i] != '=' && b[i] != ' ' && b[i] != '\t') {
                if (b[i] == '"') {
                    out.error = "invalid logfmt: a quote inside a key at column " + (i - off + 1);
                    return false;
                }
                i++;
            }
            if (i == k) {
                out.error = "invalid logfmt: '=' without a key at column " + (i - off + 1);
                return false;
            }
            String name = name(b, k, i - k);
            if (i >= end || b[i] != '=') {
                literal(name, TRUE, 0, 4);
                continue;
            }
            i++;
            pairs++;
            if (i < end && b[i] == '"') {
                int n = 0;
                i++;
                boolean closed = false;
                while (i < end) {
                    byte c = b[i++];
                    if (c == '"') {
                        closed = true;
                        break;
                    }
                    if (c == '\\' && i < end) {
                        byte e = b[i++];
                        c = switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            default -> e; // \" \\ and anything else: the character itself
                        };
                    }
                    if (n == value.length) {
                        value = Arrays.copyOf(value, n * 2);
                    }
                    value[n++] = c;
                }
                if (!closed) {
                    out.error = "invalid logfmt: unterminated quoted value of key " + name;
                    return false;
                }
                if (i < end && b[i] != ' ' && b[i] != '\t') {
                    out.error = "invalid logfmt: text right after the quoted value of key " + name;
                    return false;
                }
                string(name, value, 0, n);
            } else {
                int v = i;
                while (i < end && b[i] != ' ' && b[i] != '\t') {
                    i++;
                }
                string(name, b, v, i - v);
            }
            if (out.error != null) {
                return false;
            }
        }
        if (pairs == 0) {
            out.error = "invalid logfmt: no key=value pair";
            return false;
        }
        return out.error == null;
    }

    private static final char[] TRUE = {'t', 'r', 'u', 'e'};

    /** The key as a String, from a small cache so a repeated key costs no allocation. */
    private String name(byte[] b, int off, int len) {
        int h = 0;
        for (int i = 0; i < len; i++) {
            h = 31 * h + b[off + i];
        }
        int slot = (h ^ (h >>> 16)) & 255;
        byte[] cached = nameBytes[slot];
        if (cached != null && Arrays.equals(cached, 0, cached.length, b, off, off + len)) {
            return names[slot];
        }
        String s = new String(b, off, len, StandardCharsets.UTF_8);
        if (len <= 64) {
            nameBytes[slot] = Arrays.copyOfRange(b, off, off + len);
            names[slot] = s;
        }
        return s;
    }
}
