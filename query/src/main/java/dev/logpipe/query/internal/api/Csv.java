package dev.logpipe.query.internal.api;

import java.util.List;

/**
 * CSV rows as RFC 4180 writes them (comma-separated, CRLF-ended, a cell quoted when it holds a comma, a quote, CR or
 * LF, quotes doubled), with one defence of OWASP's against formula injection: a cell that a spreadsheet would read as
 * a formula (it starts with {@code =}, {@code +}, {@code -}, {@code @}, tab or CR) gets a leading {@code '}, so a log
 * line cannot run a formula in the analyst's spreadsheet.
 */
final class Csv {
    private Csv() {}

    static String row(List<String> cells) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            cell(cells.get(i), b);
        }
        return b.append("\r\n").toString();
    }

    private static void cell(String v, StringBuilder b) {
        String s = !v.isEmpty() && "=+-@\t\r".indexOf(v.charAt(0)) >= 0 ? "'" + v : v;
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\r') < 0 && s.indexOf('\n') < 0) {
            b.append(s);
            return;
        }
        b.append('"').append(s.replace("\"", "\"\"")).append('"');
    }
}
