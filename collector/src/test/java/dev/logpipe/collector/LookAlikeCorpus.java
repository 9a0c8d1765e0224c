package dev.logpipe.collector;

import java.util.ArrayList;
import java.util.List;

/**
 * Values that are not secrets but look like card numbers to a careless rule: long decimal ids, times, offsets,
 * counters, order numbers, hashes, UUIDs, versions, addresses. Most digit runs are made to pass the Luhn check, the
 * worst case (a tenth of all long numbers do). Each must reach Kafka exactly as sent.
 */
final class LookAlikeCorpus {
    /** Where a value sits in a record. */
    enum Place {
        TRACE_ID,
        SPAN_ID,
        RECORD_ID,
        /** A string field named {@code field}. */
        STRING_FIELD,
        /** A JSON number field named {@code field}; {@code value} is its JSON text. */
        NUMBER_FIELD,
        /** The whole message. */
        MESSAGE
    }

    record LookAlike(String name, Place place, String field, String value) {}

    private LookAlikeCorpus() {}

    /** {@code prefix} and the digit that makes the whole pass the Luhn check. */
    static String luhn(String prefix) {
        for (int check = 0; check <= 9; check++) {
            String s = prefix + check;
            int sum = 0;
            for (int i = s.length() - 1, k = 0; i >= 0; i--, k++) {
                int d = s.charAt(i) - '0';
                sum += k % 2 == 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d;
            }
            if (sum % 10 == 0) {
                return s;
            }
        }
        throw new AssertionError();
    }

    static List<LookAlike> all() {
        List<LookAlike> l = new ArrayList<>();
        l.add(new LookAlike("decimal trace id (Datadog, 16 digits)", Place.TRACE_ID, null, luhn("461737326823649")));
        l.add(new LookAlike("decimal trace id (19 digits)", Place.TRACE_ID, null, luhn("452301928374650192")));
        l.add(new LookAlike("hex trace id of digits", Place.TRACE_ID, null, "00000000000000004111111111111111"));
        l.add(new LookAlike("W3C trace id", Place.TRACE_ID, null, "4bf92f3577b34da6a3ce929d0e0e4736"));
        l.add(new LookAlike("decimal span id", Place.SPAN_ID, null, luhn("512345678901234")));
        l.add(new LookAlike("hex span id of digits", Place.SPAN_ID, null, "4012888888881881"));
        l.add(new LookAlike("decimal record id", Place.RECORD_ID, null, luhn("400000000000123")));
        l.add(new LookAlike("UUID record id", Place.RECORD_ID, null, "123e4567-e89b-12d3-a456-426614174000"));
        l.add(new LookAlike("order record id", Place.RECORD_ID, null, "order-" + luhn("455673758342185")));
        l.add(new LookAlike("Datadog trace id field", Place.STRING_FIELD, "dd.trace_id", luhn("461737326823649012")));
        l.add(new LookAlike("Datadog span id field", Place.STRING_FIELD, "dd.span_id", luhn("541234567890123")));
        l.add(new LookAlike("order id", Place.STRING_FIELD, "order_id", luhn("401234567890123")));
        l.add(new LookAlike("Kafka offset as text", Place.STRING_FIELD, "kafka.offset", luhn("412345678901")));
        l.add(new LookAlike("UUID", Place.STRING_FIELD, "request_uuid", "550e8400-e29b-41d4-a716-446655440000"));
        l.add(new LookAlike(
                "SHA-256",
                Place.STRING_FIELD,
                "sha256",
                "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"));
        l.add(new LookAlike(
                "hash with a long digit run", Place.STRING_FIELD, "commit", "e" + luhn("411111111111111") + "f0"));
        l.add(new LookAlike("RFC 3339 time", Place.STRING_FIELD, "at", "2024-06-01T12:34:56.123456789Z"));
        l.add(new LookAlike("compact time", Place.STRING_FIELD, "compact_ts", luhn("2024060112345678")));
        l.add(new LookAlike("IBAN", Place.STRING_FIELD, "iban", "DE89370400440532013000"));
        l.add(new LookAlike("phone", Place.STRING_FIELD, "contact", "+1 415 555 0132"));
        l.add(new LookAlike("ISBN", Place.STRING_FIELD, "isbn", "978-3-16-148410-0"));
        l.add(new LookAlike("IPv4 and port", Place.STRING_FIELD, "peer", "10.41.111.111:4317"));
        l.add(new LookAlike("version", Place.STRING_FIELD, "version", "4.1111.1111.1111"));
        l.add(new LookAlike("epoch nanoseconds", Place.NUMBER_FIELD, "epoch_ns", luhn("171800000000000000")));
        l.add(new LookAlike("epoch milliseconds", Place.NUMBER_FIELD, "epoch_ms", luhn("171800000000")));
        l.add(new LookAlike("byte counter", Place.NUMBER_FIELD, "bytes_sent", luhn("411111111111111")));
        l.add(new LookAlike("Kafka offset", Place.NUMBER_FIELD, "kafka.offset", luhn("5500000000000")));
        l.add(new LookAlike("snowflake id", Place.NUMBER_FIELD, "snowflake", luhn("179000000000000000")));
        l.add(new LookAlike("JSON fraction", Place.NUMBER_FIELD, "ratio", "0.4532015112830366"));
        l.add(new LookAlike("13-digit counter", Place.NUMBER_FIELD, "events", luhn("601100000000")));
        l.add(new LookAlike("duration in ns", Place.NUMBER_FIELD, "duration", luhn("451234567890123")));
        l.add(new LookAlike(
                "ids in text",
                Place.MESSAGE,
                null,
                "trace_id=" + luhn("461737326823649") + " span_id=" + luhn("512345678901234") + " done"));
        l.add(new LookAlike(
                "offset in text", Place.MESSAGE, null, "consumed partition 3 offset " + luhn("412345678901234")));
        l.add(new LookAlike("decimal in text", Place.MESSAGE, null, "took 0." + luhn("453201511283036") + " s"));
        // An order number with a card's prefix, length and Luhn digit is a card as far as anyone can tell: it is
        // redacted (SecretCorpus), so the order numbers here have no network's prefix.
        l.add(new LookAlike(
                "order number in text", Place.MESSAGE, null, "order #" + luhn("100000000001234") + " shipped"));
        l.add(new LookAlike(
                "UUID of digits in text", Place.MESSAGE, null, "uuid 12345678-1234-1234-1234-123456789012 ok"));
        l.add(new LookAlike("addresses in text", Place.MESSAGE, null, "request 10.0.0.1:8080 -> 10.0.0.2:443"));
        l.add(new LookAlike(
                "elapsed in text", Place.MESSAGE, null, "elapsed_ns=" + luhn("411111111111111") + " for the batch"));
        l.add(new LookAlike(
                "JSON trace id in text",
                Place.MESSAGE,
                null,
                "payload {\"dd.trace_id\":\"" + luhn("452301928374650192") + "\"}"));
        l.add(new LookAlike(
                "order path in text", Place.MESSAGE, null, "GET /api/orders/" + luhn("901234567890123") + " 200"));
        l.add(new LookAlike(
                "timestamps in text", Place.MESSAGE, null, "between 2024-06-01 12:34:56.789 and 20240601123456789"));
        return l;
    }
}
