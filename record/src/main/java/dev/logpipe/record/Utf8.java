package dev.logpipe.record;

/** UTF-8 well-formedness at the byte level, shared by the encoders and the forwarder's JSON fast path. */
public final class Utf8 {
    private Utf8() {}

    /**
     * Length (2 to 4) of the well-formed multi-byte UTF-8 sequence starting at {@code i}, or 0 if it is malformed
     * (overlong, a surrogate, above U+10FFFF, truncated) or does not end before {@code end}.
     */
    public static int sequenceLength(byte[] src, int i, int end) {
        int b0 = src[i] & 0xFF;
        int need;
        int min;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            need = 1;
            min = 0x80;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            need = 2;
            min = 0x800;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            need = 3;
            min = 0x10000;
        } else {
            return 0;
        }
        if (i + need >= end) {
            return 0;
        }
        int cp = b0 & (0x3F >> need);
        for (int k = 1; k <= need; k++) {
            int c = src[i + k] & 0xFF;
            if ((c & 0xC0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return 0;
        }
        return need + 1;
    }
}
