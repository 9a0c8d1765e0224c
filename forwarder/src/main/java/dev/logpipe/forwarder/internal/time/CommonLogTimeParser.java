package dev.logpipe.forwarder.internal.time;

/** The Apache/NCSA common log format's {@code 02/Jan/2006:15:04:05 -0700} (month names in any case). */
final class CommonLogTimeParser implements TimeParser {
    @Override
    public long parse(byte[] b, int off, int len) {
        if (len != 26
                || b[off + 2] != '/'
                || b[off + 6] != '/'
                || b[off + 11] != ':'
                || b[off + 14] != ':'
                || b[off + 17] != ':'
                || b[off + 20] != ' ') {
            return NONE;
        }
        int d = CivilTime.digits(b, off, 2);
        int mo = CivilTime.month(b, off + 3);
        int y = CivilTime.digits(b, off + 7, 4);
        int h = CivilTime.digits(b, off + 12, 2);
        int mi = CivilTime.digits(b, off + 15, 2);
        int s = CivilTime.digits(b, off + 18, 2);
        if (y < 0 || !CivilTime.validDate(y, mo, d) || !CivilTime.validTime(h, mi, s)) {
            return NONE;
        }
        int offset = IsoTimeParser.offsetSeconds(b, off + 21, off + len);
        if (offset == Integer.MIN_VALUE) {
            return NONE;
        }
        return CivilTime.nanos(CivilTime.localSecond(y, mo, d, h, mi, s) - offset, 0);
    }
}
