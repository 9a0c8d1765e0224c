package dev.logpipe.collector.internal.compat.syslog;

import dev.logpipe.collector.internal.compat.RecordTree;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * One syslog message as a schema-v3 record (docs/ingest.md#syslog): RFC 5424 ({@code <PRI>1 TIMESTAMP HOST APP
 * PROCID MSGID [SD] MSG}) or RFC 3164 ({@code <PRI>Mmm dd hh:mm:ss HOST TAG[PID]: MSG}, the year taken from the
 * clock, UTC). The severity is the level, the host the instance, the app name (or tag) the service; facility,
 * proc id, msg id and structured data are fields. A message without a valid {@code <PRI>} is refused.
 */
final class SyslogParser {
    private static final String[] FACILITIES = {
        "kern",
        "user",
        "mail",
        "daemon",
        "auth",
        "syslog",
        "lpr",
        "news",
        "uucp",
        "cron",
        "authpriv",
        "ftp",
        "ntp",
        "security",
        "console",
        "solaris-cron",
        "local0",
        "local1",
        "local2",
        "local3",
        "local4",
        "local5",
        "local6",
        "local7"
    };
    private static final String[] LEVELS = {"FATAL", "FATAL", "FATAL", "ERROR", "WARN", "INFO", "INFO", "DEBUG"};
    private static final String[] SEVERITIES = {"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug"};
    private static final DateTimeFormatter BSD = DateTimeFormatter.ofPattern("MMM d HH:mm:ss yyyy", Locale.ROOT);

    private SyslogParser() {}

    /** The record line; {@link IllegalArgumentException} with the reason when it is not syslog. */
    static byte[] toLine(byte[] frame, Instant now) {
        String s = new String(frame, StandardCharsets.UTF_8);
        while (!s.isEmpty() && (s.endsWith("\n") || s.endsWith("\r") || s.endsWith("\0"))) {
            s = s.substring(0, s.length() - 1);
        }
        if (!s.startsWith("<")) {
            throw new IllegalArgumentException("a syslog message starts with <PRI>");
        }
        int close = s.indexOf('>');
        if (close < 2 || close > 4) {
            throw new IllegalArgumentException("the <PRI> is not 1 to 3 digits");
        }
        int pri;
        try {
            pri = Integer.parseInt(s.substring(1, close));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the <PRI> is not a number");
        }
        if (pri < 0 || pri > 191) {
            throw new IllegalArgumentException("the <PRI> " + pri + " is outside 0..191");
        }
        RecordTree r = new RecordTree();
        r.top("level", LEVELS[pri & 7]);
        r.field("syslog.severity", SEVERITIES[pri & 7]);
        r.field("syslog.facility", FACILITIES[pri >> 3]);
        String rest = s.substring(close + 1);
        if (rest.startsWith("1 ")) {
            rfc5424(r, rest.substring(2));
        } else {
            rfc3164(r, rest, now);
        }
        return r.toLine();
    }

    private static void rfc5424(RecordTree r, String s) {
        String[] head = new String[5];
        int pos = 0;
        for (int i = 0; i < 5; i++) {
            int sp = s.indexOf(' ', pos);
            if (sp < 0) {
                throw new IllegalArgumentException("an RFC 5424 header has TIMESTAMP HOSTNAME APP-NAME PROCID MSGID");
            }
            head[i] = s.substring(pos, sp);
            pos = sp + 1;
        }
        if (!"-".equals(head[0])) {
            try {
                r.eventTime(OffsetDateTime.parse(head[0]).toInstant());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("the RFC 5424 timestamp is not RFC 3339: " + head[0]);
            }
        }
        r.top("instance_id", nil(head[1]));
        r.top("service", nil(head[2]));
        if (nil(head[3]) != null) {
            r.field("syslog.procid", head[3]);
        }
        if (nil(head[4]) != null) {
            r.field("syslog.msgid", head[4]);
        }
        pos = structuredData(r, s, pos);
        String msg = pos < s.length() ? s.substring(pos) : "";
        if (msg.startsWith("\uFEFF")) {
            msg = msg.substring(1);
        }
        r.forceMessage(msg);
    }

    /** Parses {@code [id k="v" ...]...} or {@code -} at {@code pos} into fields; the position after it. */
    private static int structuredData(RecordTree r, String s, int pos) {
        if (s.startsWith("-", pos)) {
            return Math.min(s.length(), pos + 2);
        }
        while (pos < s.length() && s.charAt(pos) == '[') {
            int i = pos + 1;
            int sp = i;
            while (sp < s.length() && s.charAt(sp) != ' ' && s.charAt(sp) != ']') {
                sp++;
            }
            String id = s.substring(i, Math.min(sp, s.length()));
            i = sp;
            while (i < s.length() && s.charAt(i) != ']') {
                while (i < s.length() && s.charAt(i) == ' ') {
                    i++;
                }
                int eq = s.indexOf('=', i);
                if (eq < 0 || eq + 1 >= s.length() || s.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("structured data is not [id name=\"value\" ...]");
                }
                String name = s.substring(i, eq);
                StringBuilder v = new StringBuilder();
                int j = eq + 2;
                for (; j < s.length() && s.charAt(j) != '"'; j++) {
                    if (s.charAt(j) == '\\' && j + 1 < s.length()) {
                        j++;
                    }
                    v.append(s.charAt(j));
                }
                if (j >= s.length()) {
                    throw new IllegalArgumentException("a structured-data value is not terminated");
                }
                r.field("sd." + id + "." + name, v.toString());
                i = j + 1;
            }
            if (i >= s.length()) {
                throw new IllegalArgumentException("structured data is not terminated by ]");
            }
            pos = i + 1;
        }
        return pos < s.length() && s.charAt(pos) == ' ' ? pos + 1 : pos;
    }

    private static void rfc3164(RecordTree r, String s, Instant now) {
        String msg = s;
        if (s.length() >= 16 && s.charAt(3) == ' ' && s.charAt(6) == ' ' && s.charAt(9) == ':') {
            String stamp = s.substring(0, 15).replace("  ", " ");
            int year = now.atOffset(ZoneOffset.UTC).getYear();
            try {
                LocalDateTime t = LocalDateTime.parse(stamp + " " + year, BSD);
                if (t.toInstant(ZoneOffset.UTC).isAfter(now.plusSeconds(86_400))) {
                    t = t.minusYears(1); // December's messages read in January
                }
                r.eventTime(t.toInstant(ZoneOffset.UTC));
                msg = s.substring(16);
                int sp = msg.indexOf(' ');
                if (sp > 0) {
                    r.top("instance_id", msg.substring(0, sp));
                    msg = msg.substring(sp + 1);
                }
            } catch (DateTimeParseException e) {
                msg = s; // no timestamp: the whole rest is the message
            }
        }
        int colon = msg.indexOf(": ");
        int space = msg.indexOf(' ');
        if (colon > 0 && (space < 0 || colon < space) && colon <= 48) {
            String tag = msg.substring(0, colon);
            int bracket = tag.indexOf('[');
            if (bracket > 0 && tag.endsWith("]")) {
                r.field("syslog.procid", tag.substring(bracket + 1, tag.length() - 1));
                tag = tag.substring(0, bracket);
            }
            r.top("service", tag);
            msg = msg.substring(colon + 2);
        }
        r.forceMessage(msg);
    }

    private static String nil(String v) {
        return "-".equals(v) ? null : v;
    }
}
