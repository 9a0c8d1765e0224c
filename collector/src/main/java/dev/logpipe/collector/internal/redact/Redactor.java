package dev.logpipe.collector.internal.redact;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.record.LogRecord;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Replaces secrets in a record before it is durable anywhere (invariant I5): in the message, the top-level
 * identifiers, every string field, every field <em>name</em>, and the {@code record_id}. Built-in rules
 * ({@link BuiltInRules}: keys, tokens, credentials in URLs, JWTs, then secret {@code name=value} pairs, then card
 * numbers, {@link CardNumbers}) come first, then the configured ones; a field whose name says it is a secret
 * ({@link SecretNames}) is masked whole, whatever its type, and a number that is a card number is too. Ids are kept:
 * a {@code trace_id}, {@code span_id} or {@code record_id} shaped like one is never rewritten, and no id or field
 * named like a machine id, a time, an offset or a count is taken for a card number. All patterns are RE2 (linear time)
 * behind one-pass prefilters ({@link Triggers}). A value that cannot be checked fails closed: a field longer than
 * {@code max_scan_bytes} is withheld (named in {@code fields."logpipe.redaction.withheld"}); a message that long
 * holds the whole record back ({@link Result#heldBack}).
 */
public final class Redactor {
    public static final String WITHHELD_FIELD = "logpipe.redaction.withheld";
    static final String RECORD_ID_RULE = "record_id";

    /** One rule: a name for metrics and markers, a pattern, what replaces a match, and its {@link Triggers} bit. */
    record Rule(String name, Pattern pattern, String replacement, int trigger) {}

    /**
     * The redacted record, or null when it is held back; which rules fired, how often; how many field values met a
     * name already taken (two names redacted alike, a client field named {@link #WITHHELD_FIELD}) and were kept
     * under a name of their own ({@link LogRecord.Builder#fieldKeepingBoth}).
     */
    public record Result(LogRecord record, Map<String, Integer> hits, String heldBackReason, int fieldCollisions) {
        public boolean heldBack() {
            return record == null;
        }
    }

    private final List<Rule> beforePairs;
    private final List<Rule> configured;
    private final int maxScanChars;

    public Redactor(CollectorConfig.Redaction config) {
        this.beforePairs = BuiltInRules.beforePairs();
        List<Rule> rules = new ArrayList<>();
        for (CollectorConfig.Rule r : config.rules()) {
            rules.add(new Rule(r.name(), Pattern.compile(r.pattern()), r.replacement(), Triggers.ALWAYS));
        }
        this.configured = List.copyOf(rules);
        this.maxScanChars = config.maxScanBytes();
    }

    public List<String> ruleNames() {
        List<String> names = new ArrayList<>();
        beforePairs.forEach(r -> names.add(r.name()));
        names.add(SecretPairs.RULE);
        names.add(CardNumbers.RULE);
        configured.forEach(r -> names.add(r.name()));
        names.add(BuiltInRules.SECRET_FIELD_RULE);
        return names;
    }

    public Result redact(LogRecord r) {
        Map<String, Integer> hits = new LinkedHashMap<>();
        if (r.message().length() > maxScanChars) {
            return new Result(
                    null,
                    hits,
                    "message of " + r.message().length() + " characters is longer than " + "redaction.max_scan_bytes ("
                            + maxScanChars + "); it cannot be checked for secrets",
                    0);
        }
        String message = apply(r.message(), hits, Cards.SCAN);
        // The short top-level strings too: a client can put anything anywhere.
        String service = applyNullable(r.service(), hits);
        String instance = applyNullable(r.instanceId(), hits);
        String region = applyNullable(r.region(), hits);
        String trace = identifier(r.traceId(), hits);
        String span = identifier(r.spanId(), hits);
        String recordId = redactRecordId(r.recordId(), hits);
        // The fields are rebuilt as they are checked; the record is only rebuilt when something changed.
        LogRecord.Builder b = r.toBuilder().clearFields();
        List<String> withheld = new ArrayList<>();
        boolean changed = !message.equals(r.message())
                || !Objects.equals(service, r.service())
                || !Objects.equals(instance, r.instanceId())
                || !Objects.equals(region, r.region())
                || !Objects.equals(trace, r.traceId())
                || !Objects.equals(span, r.spanId())
                || !Objects.equals(recordId, r.recordId());
        for (Map.Entry<String, Object> e : r.fields().entrySet()) {
            String name = apply(e.getKey(), hits, Cards.SCAN);
            changed |= !name.equals(e.getKey());
            Object value = e.getValue();
            SecretNames.NameKind kind = SecretNames.kind(e.getKey());
            if (!(value instanceof String s)) {
                Object v = kind == SecretNames.NameKind.SECRET ? mask(hits) : redactNumber(kind, value, hits);
                changed |= v != value;
                b.fieldKeepingBoth(name, v); // two names redacted alike stay two fields
                continue;
            }
            if (s.length() > maxScanChars) {
                withheld.add(name);
                hits.merge("max_scan_bytes", 1, Integer::sum);
                changed = true;
                continue;
            }
            // key=value style: a field named like a secret is a secret, whatever its value looks like.
            // A field named like a machine id, a time, an offset or a count holds no card number (dd.trace_id,
            // kafka.offset).
            Cards cards = kind == SecretNames.NameKind.ID ? Cards.SKIP : Cards.SCAN;
            String v = kind == SecretNames.NameKind.SECRET && !s.isEmpty() ? mask(hits) : apply(s, hits, cards);
            changed |= !v.equals(s);
            b.fieldKeepingBoth(name, v);
        }
        if (!changed) {
            return new Result(r, hits, null, 0);
        }
        if (!withheld.isEmpty()) {
            // The marker means what the collector says; a client field of that name is kept beside it.
            b.pipelineField(WITHHELD_FIELD, String.join(",", withheld));
        }
        b.message(message)
                .service(service)
                .instanceId(instance)
                .region(region)
                .traceId(trace)
                .spanId(span)
                .recordId(recordId);
        return new Result(b.build(), hits, null, b.fieldCollisions());
    }

    /**
     * Free text (a dead letter's raw line, a reason) with every rule applied; null when it is too long to check, so
     * that it is withheld rather than kept unchecked.
     */
    public String redactText(String text) {
        if (text.length() > maxScanChars) {
            return null;
        }
        return apply(text, new LinkedHashMap<>(), Cards.SCAN);
    }

    private static String mask(Map<String, Integer> hits) {
        hits.merge(BuiltInRules.SECRET_FIELD_RULE, 1, Integer::sum);
        return "[REDACTED:" + BuiltInRules.SECRET_FIELD_RULE + "]";
    }

    /**
     * A JSON number that is a card number ({@code "card": 4111111111111111}) is as secret as the string, unless its
     * name says it is a machine id, a time, an offset or a count.
     */
    private static Object redactNumber(SecretNames.NameKind kind, Object value, Map<String, Integer> hits) {
        if (value instanceof Number n && kind != SecretNames.NameKind.ID) {
            String digits = integralDigits(n);
            if (digits != null && CardNumbers.isCard(digits)) {
                hits.merge(CardNumbers.RULE, 1, Integer::sum);
                return CardNumbers.MARK;
            }
        }
        return value;
    }

    /**
     * A {@code trace_id} or {@code span_id}: one shaped like an id (hex or decimal digits and dashes: W3C, Datadog,
     * UUID) is never rewritten; any other value goes through every rule but the card numbers (an id is digits).
     */
    private String identifier(String id, Map<String, Integer> hits) {
        return id == null || idShaped(id) ? id : apply(id, hits, Cards.SKIP);
    }

    /** Hex digits, decimal digits and dashes only: no secret shape is made of them alone. */
    static boolean idShaped(String id) {
        if (id.isEmpty() || id.length() > 128) {
            return false;
        }
        boolean digit = false;
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
            if (!hex && c != '-') {
                return false;
            }
            digit |= hex;
        }
        return digit;
    }

    /** The digits of a whole number ({@code 4111111111111111.0} too), or null for a fraction. */
    private static String integralDigits(Number n) {
        if ((n instanceof Double || n instanceof Float) && !Double.isFinite(n.doubleValue())) {
            return null; // 1e400 is read as Infinity: no digits, and no BigDecimal
        }
        if (n instanceof Double || n instanceof Float || n instanceof BigDecimal) {
            BigDecimal d = n instanceof BigDecimal b ? b : new BigDecimal(n.toString());
            try {
                return d.toBigIntegerExact().abs().toString();
            } catch (ArithmeticException fraction) {
                return null;
            }
        }
        String s = n.toString();
        return s.startsWith("-") ? s.substring(1) : s;
    }

    /**
     * A {@code record_id} holding a secret is replaced by a hash of itself: the secret goes, and a retry with the
     * same id still gets the same (new) id, so de-duplication keeps working. One shaped like an id
     * ({@link #idShaped}) is never touched, and no id is taken for a card number.
     */
    private String redactRecordId(String id, Map<String, Integer> hits) {
        if (id == null
                || idShaped(id)
                || apply(id, new LinkedHashMap<>(), Cards.SKIP).equals(id)) {
            return id;
        }
        hits.merge(RECORD_ID_RULE, 1, Integer::sum);
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(id.getBytes(StandardCharsets.UTF_8));
            return "redacted-" + HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** Appends {@code replacement} with {@code $1}..{@code $9} replaced by the match's groups ({@code $$} is a dollar). */
    private static void expand(String replacement, Matcher m, StringBuilder sb) {
        for (int i = 0; i < replacement.length(); i++) {
            char c = replacement.charAt(i);
            if (c == '$' && i + 1 < replacement.length()) {
                char d = replacement.charAt(i + 1);
                if (d == '$') {
                    sb.append('$');
                    i++;
                    continue;
                }
                if (d >= '1' && d <= '9' && d - '0' <= m.groupCount()) {
                    String g = m.group(d - '0');
                    sb.append(g == null ? "" : g);
                    i++;
                    continue;
                }
            }
            sb.append(c);
        }
    }

    /** Whether a value is scanned for card numbers. */
    private enum Cards {
        SCAN,
        SKIP
    }

    private String applyNullable(String text, Map<String, Integer> hits) {
        return text == null ? null : apply(text, hits, Cards.SCAN);
    }

    private String apply(String text, Map<String, Integer> hits, Cards cards) {
        int mask = Triggers.of(text);
        String out = applyAll(beforePairs, text, mask, hits);
        if ((mask & Triggers.PAIR) != 0) {
            int[] count = {0};
            out = SecretPairs.redact(out, count);
            if (count[0] > 0) {
                hits.merge(SecretPairs.RULE, count[0], Integer::sum);
            }
        }
        if (cards == Cards.SCAN && (mask & Triggers.CARD) != 0) {
            int[] count = {0};
            out = CardNumbers.redact(out, count);
            if (count[0] > 0) {
                hits.merge(CardNumbers.RULE, count[0], Integer::sum);
            }
        }
        return applyAll(configured, out, mask, hits);
    }

    private static String applyAll(List<Rule> rules, String text, int mask, Map<String, Integer> hits) {
        String out = text;
        for (Rule rule : rules) {
            if (rule.trigger() != Triggers.ALWAYS && (rule.trigger() & mask) == 0) {
                continue;
            }
            Matcher m = rule.pattern().matcher(out);
            StringBuilder sb = null;
            int last = 0;
            int count = 0;
            int from = 0;
            while (from <= out.length() && m.find(from)) {
                int start = m.start();
                int end = m.end();
                if (sb == null) {
                    sb = new StringBuilder(out.length());
                }
                sb.append(out, last, start);
                expand(rule.replacement(), m, sb);
                last = end;
                count++;
                from = end > start ? end : end + 1;
            }
            if (count > 0) {
                sb.append(out, last, out.length());
                out = sb.toString();
                hits.merge(rule.name(), count, Integer::sum);
            }
        }
        return out;
    }
}
