package dev.logpipe.forwarder.internal.parse;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.logpipe.forwarder.config.ForwarderConfig.KeyMapping;
import dev.logpipe.forwarder.internal.time.TimeParser;
import java.util.Arrays;

/**
 * {@code parser.format: logfmt}: {@code key=value key2="quoted \"value\""} pairs separated by spaces. Quoted
 * values understand {@code \" \\ \n \r \t}; a key without {@code =} is the boolean {@code true}. Every value
 * is a string (logfmt has no types). A line without any {@code key=value} pair, with an unterminated quote, or
 * with a quote inside a key is an error.
 */
public final class LogfmtLineReader extends StructuredReader {
    private static final int KEY_SLOTS = 256;
    private static final int MAX_CACHED_KEY = 64;
    /** Keys are resolved once: a file's lines repeat them. An open-addressing table by the key's bytes. */
    private final SeenKey[] seen = new SeenKey[KEY_SLOTS];

    private int seenCount;
    /**
     * The keys of the line read last, in their order: a file's lines usually have the keys of the line before, so
     * each key is first compared with the one at its place there, a word or two, before it is scanned and hashed.
     */
    private final SeenKey[] lastLine = new SeenKey[64];

    private int lastLineCount;
    /** A quoted value with escapes, unescaped. */
    private byte[] value = new byte[256];

    public LogfmtLineReader(KeyMapping keys, String timeKey, TimeParser time) {
        super(new KeyRoles(keys, timeKey), time);
    }

    @Override
    boolean parse(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        int pairs = 0;
        int position = 0;
        int predictable = lastLineCount;
        lastLineCount = 0; // until this line's keys are all read
        while (true) {
            while (i < end && (b[i] == ' ' || b[i] == '\t')) {
                i++;
            }
            if (i >= end) {
                break;
            }
            int k = i;
            SeenKey seenKey = position < predictable ? lastLine[position] : null;
            if (seenKey != null && seenKey.startsWithPair(b, k, end)) {
                i = k + seenKey.length();
            } else {
                int h = TextCache.FNV_START; // the key's hash, for the key cache, computed while it is scanned
                while (i < end) {
                    byte c = b[i];
                    if (c == '=' || c == ' ' || c == '\t') {
                        break;
                    }
                    if (c == '"') {
                        out.error = "invalid logfmt: a quote inside a key at column " + (i - off + 1);
                        return false;
                    }
                    h = (h ^ c) * TextCache.FNV_PRIME;
                    i++;
                }
                if (i == k) {
                    out.error = "invalid logfmt: '=' without a key at column " + (i - off + 1);
                    return false;
                }
                seenKey = seenKey(b, k, i - k, h);
            }
            if (position < lastLine.length) {
                lastLine[position++] = seenKey;
            }
            Key key = seenKey.key();
            if (i >= end || b[i] != '=') {
                literal(key.name(), TRUE, 0, 4);
                continue;
            }
            i++;
            pairs++;
            if (i < end && b[i] == '"') {
                int start = ++i;
                boolean escapes = false;
                while ((i = ByteScan.indexOfEither(b, i, end, (byte) '"', (byte) '\\')) < end && b[i] == '\\') {
                    escapes = true;
                    i += 2; // the escaped byte, even a quote, is part of the value
                }
                if (i >= end) {
                    out.error = "invalid logfmt: unterminated quoted value of key " + key.name();
                    return false;
                }
                int stop = i++;
                if (i < end && b[i] != ' ' && b[i] != '\t') {
                    out.error = "invalid logfmt: text right after the quoted value of key " + key.name();
                    return false;
                }
                if (escapes) {
                    string(key, value, 0, unescape(b, start, stop), false);
                } else {
                    string(key, b, start, stop - start, true);
                }
            } else {
                int v = i;
                i = ByteScan.indexOfEither(b, v, end, (byte) ' ', (byte) '\t');
                string(key, b, v, i - v, true);
            }
            if (out.error != null) {
                return false;
            }
        }
        lastLineCount = position;
        if (pairs == 0) {
            out.error = "invalid logfmt: no key=value pair";
            return false;
        }
        return out.error == null;
    }

    /**
     * Copies {@code b[from, to)} into {@link #value} with {@code \n \r \t} turned into their characters and any
     * other escaped character (a quote, a backslash, …) into itself; returns the length.
     */
    private int unescape(byte[] b, int from, int to) {
        if (value.length < to - from) {
            value = new byte[Math.max(to - from, value.length * 2)];
        }
        int n = 0;
        for (int i = from; i < to; i++) {
            byte c = b[i];
            if (c == '\\' && i + 1 < to) {
                c = switch (b[++i]) {
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    default -> b[i];
                };
            }
            value[n++] = c;
        }
        return n;
    }

    private static final char[] TRUE = {'t', 'r', 'u', 'e'};

    /**
     * The key {@code b[off, off + len)} of FNV-1a hash {@code h}, resolved once: the cache is an open-addressing
     * table, so keys that share a slot do not evict each other on every line; when it is half full (a file whose
     * keys never repeat) it starts again empty.
     */
    private SeenKey seenKey(byte[] b, int off, int len, int h) {
        int slot = TextCache.fold(h) & (KEY_SLOTS - 1);
        for (SeenKey s; (s = seen[slot]) != null; slot = (slot + 1) & (KEY_SLOTS - 1)) {
            if (s.hash == h && Arrays.equals(s.bytes, 0, s.bytes.length, b, off, off + len)) {
                return s;
            }
        }
        SeenKey s = new SeenKey(Arrays.copyOfRange(b, off, off + len), h, key(new String(b, off, len, UTF_8)));
        if (len <= MAX_CACHED_KEY) {
            if (seenCount == KEY_SLOTS / 2) {
                Arrays.fill(seen, null);
                seenCount = 0;
                return s;
            }
            seen[slot] = s;
            seenCount++;
        }
        return s;
    }

    /** A key as it is written in the line, and what it means. */
    private static final class SeenKey {
        final byte[] bytes;
        final int hash;
        private final Key key;
        /** The key followed by {@code =}, as two little-endian words and the masks of its bytes (up to 16). */
        private final long word0;

        private final long word1;
        private final long mask0;
        private final long mask1;

        SeenKey(byte[] bytes, int hash, Key key) {
            this.bytes = bytes;
            this.hash = hash;
            this.key = key;
            byte[] pair = Arrays.copyOf(bytes, bytes.length + 1);
            pair[bytes.length] = '=';
            word0 = ByteScan.wordOf(pair, 0);
            word1 = ByteScan.wordOf(pair, 1);
            mask0 = ByteScan.maskOf(pair.length, 0);
            mask1 = ByteScan.maskOf(pair.length, 1);
        }

        Key key() {
            return key;
        }

        int length() {
            return bytes.length;
        }

        /**
         * Whether {@code b} at {@code k} holds this key and then {@code =}. A key holds no {@code =}, blank or
         * quote, so the key scan of such a line would stop exactly there.
         */
        boolean startsWithPair(byte[] b, int k, int end) {
            int n = bytes.length;
            if (end - k <= n) {
                return false;
            }
            if (n < 16 && end - k >= 16) {
                return ByteScan.startsWithWords(b, k, word0, mask0, word1, mask1);
            }
            return b[k + n] == '=' && Arrays.equals(bytes, 0, n, b, k, k + n);
        }
    }
}
