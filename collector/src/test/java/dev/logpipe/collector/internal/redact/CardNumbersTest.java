package dev.logpipe.collector.internal.redact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.record.LogRecord;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Card numbers of the real networks are found in any printed form; ids, times and counters never are. */
class CardNumbersTest {
    private final Redactor redactor = new Redactor(new CollectorConfig.Redaction(List.of(), 64 * 1024));

    private static String withCheckDigit(String prefix) {
        for (int check = 0; check <= 9; check++) {
            if (CardNumbers.luhn(prefix + check)) {
                return prefix + check;
            }
        }
        throw new AssertionError();
    }

    /** A network's prefix and one of its lengths, completed with random digits and the check digit. */
    @Provide
    Arbitrary<String> cards() {
        Arbitrary<String[]> network = Arbitraries.of(
                new String[] {"4", "16"},
                new String[] {"4", "13"},
                new String[] {"4", "19"},
                new String[] {"51", "16"},
                new String[] {"55", "16"},
                new String[] {"2221", "16"},
                new String[] {"2720", "16"},
                new String[] {"34", "15"},
                new String[] {"37", "15"},
                new String[] {"6011", "16"},
                new String[] {"6011", "19"},
                new String[] {"644", "16"},
                new String[] {"65", "16"},
                new String[] {"622126", "16"},
                new String[] {"3528", "16"},
                new String[] {"3589", "19"},
                new String[] {"300", "14"},
                new String[] {"36", "14"},
                new String[] {"38", "16"},
                new String[] {"62", "17"},
                new String[] {"6759", "18"});
        return network.flatMap(n -> Arbitraries.strings()
                .numeric()
                .ofLength(Integer.parseInt(n[1]) - n[0].length() - 1)
                .map(rest -> withCheckDigit(n[0] + rest)));
    }

    /** A card as people print it: whole, or in fours (4-6-5 for 15 digits) with a space or a dash. */
    private static String printed(String card, String sep) {
        if (sep.isEmpty()) {
            return card;
        }
        if (card.length() == 15) {
            return card.substring(0, 4) + sep + card.substring(4, 10) + sep + card.substring(10);
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < card.length(); i += 4) {
            b.append(i == 0 ? "" : sep).append(card, i, Math.min(card.length(), i + 4));
        }
        return b.toString();
    }

    @Property(tries = 500)
    void everyCardOfARealNetworkIsRedactedInAnyPrintedForm(
            @ForAll("cards") String card, @ForAll("separators") String sep) {
        String text = "paid with " + printed(card, sep) + " today";
        int[] count = {0};
        assertThat(CardNumbers.redact(text, count)).isEqualTo("paid with " + CardNumbers.MARK + " today");
        assertThat(count[0]).isEqualTo(1);
        LogRecord r = LogRecord.builder("m").field("card", Long.parseLong(card)).build();
        assertThat(redactor.redact(r).record().fields()).containsEntry("card", CardNumbers.MARK);
    }

    /** Words people write before any number say nothing of a card: it is redacted after them and under them. */
    @Property(tries = 300)
    void aCardAfterOrUnderAGenericWordIsRedacted(@ForAll("cards") String card, @ForAll("genericWords") String word) {
        String text = word + " " + card;
        assertThat(CardNumbers.redact(text, new int[1])).as(text).isEqualTo(word + " " + CardNumbers.MARK);
        LogRecord r = LogRecord.builder("m")
                .field(word, card)
                .field(word + "_n", Long.parseLong(card))
                .build();
        assertThat(redactor.redact(r).record().fields())
                .containsEntry(word, CardNumbers.MARK)
                .containsEntry(word + "_n", CardNumbers.MARK);
    }

    @Provide
    Arbitrary<String> genericWords() {
        return Arbitraries.of(
                "number",
                "num",
                "no",
                "nr",
                "ref",
                "reference",
                "total",
                "phone",
                "tel",
                "order",
                "orders",
                "invoice",
                "items",
                "users",
                "serial",
                "acct number",
                "order_no");
    }

    @Provide
    Arbitrary<String> separators() {
        return Arbitraries.of("", " ", "-");
    }

    @Provide
    Arbitrary<Long> longs() {
        return Arbitraries.longs();
    }

    /** Ids, times and counters as logs carry them: none is a card, whatever its digits. */
    @Property(tries = 1000)
    void idsTimesAndCountersAreNeverRedacted(
            @ForAll("longs") long a, @ForAll("longs") long b, @ForAll("namesOfIds") String name) {
        String traceId = Long.toUnsignedString(a); // Datadog: unsigned 64 bits in decimal
        String spanId = String.format("%016x", b);
        String uuid = new UUID(a, b).toString();
        String text = name + "=" + Long.toUnsignedString(b) + " trace_id=" + traceId + " uuid=" + uuid;
        LogRecord r = LogRecord.builder(text)
                .traceId(traceId)
                .spanId(spanId)
                .recordId(Long.toUnsignedString(a ^ b))
                .field(name, Long.toUnsignedString(b))
                .field(name + "_n", b)
                .build();
        Redactor.Result out = redactor.redact(r);
        assertThat(out.record()).isEqualTo(r);
        assertThat(out.hits()).isEmpty();
    }

    @Provide
    Arbitrary<String> namesOfIds() {
        return Arbitraries.of(
                "trace_id",
                "dd.span_id",
                "kafka.offset",
                "epoch_ns",
                "timestamp_ms",
                "bytes_sent",
                "order_id",
                "seq",
                "requestId",
                "event.sequence",
                "partition_offset",
                "count");
    }

    /** Random digit runs beside letters, in decimals and in longer grouped numbers are not cards. */
    @Property(tries = 500)
    void digitsGluedToLettersInsideDecimalsOrLongerGroupsAreNotCards(@ForAll("cards") String card) {
        for (String text : new String[] {
            "x" + card, card + "y", "0." + card, card + ".5", "12-" + card, printed(card, " ") + " 1234 5678"
        }) {
            int[] count = {0};
            assertThat(CardNumbers.redact(text, count)).as(text).isEqualTo(text);
        }
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "card 5500  0000  0000  0004 ok | card [REDACTED:card_number] ok",
                "card 4111.1111.1111.1111 ok | card [REDACTED:card_number] ok",
                "card number: 4111111111111111 | card number: [REDACTED:card_number]",
                "pan_4111111111111111 stored | pan_[REDACTED:card_number] stored",
                "2024-06-01 4111 1111 1111 1111 paid | 2024-06-01 [REDACTED:card_number] paid",
                "card 4111 1111 1111 1111 123 | card [REDACTED:card_number]",
                "trace_id=4111111111111111 | trace_id=4111111111111111",
                "{\"span_id\":\"4111111111111111\"} | {\"span_id\":\"4111111111111111\"}",
                "GET /orders/4111111111111111 | GET /orders/[REDACTED:card_number]",
                "acct number 4111 1111 1111 1111 | acct number [REDACTED:card_number]",
                "ref: 4111111111111111 | ref: [REDACTED:card_number]",
                "order #4111111111111111 | order #[REDACTED:card_number]",
                "kafka offset 4111111111111111 | kafka offset 4111111111111111",
                "epoch_ms=4111111111111111 | epoch_ms=4111111111111111",
                "GET /pay/4111111111111111 | GET /pay/[REDACTED:card_number]",
                "id 9999 9999 9999 9995 | id 9999 9999 9999 9995"
            })
    void printedFormsAndContext(String in, String out) {
        assertThat(CardNumbers.redact(in, new int[1])).isEqualTo(out);
    }
}
