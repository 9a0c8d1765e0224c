package dev.logpipe.collector.internal.redact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.collector.config.CollectorConfig;
import dev.logpipe.record.LogRecord;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The built-in rules, a configured rule, and failing closed on values too long to check. */
class RedactorTest {
    private final Redactor redactor = new Redactor(
            new CollectorConfig.Redaction(List.of(new CollectorConfig.Rule("ticket", "TKT-[0-9]{4}", "[T]")), 100));

    private String message(String text) {
        return redactor.redact(LogRecord.builder(text).build()).record().message();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "GET /x Authorization: Bearer abc.def-ghi_jkl | GET /x Authorization: Bearer [REDACTED:bearer_token]",
                "key AKIAIOSFODNN7EXAMPLE here | key [REDACTED:aws_access_key] here",
                "login password=hunter2 ok | login password=[REDACTED:secret_pair] ok",
                "cfg secret: 'a b c' done | cfg secret: '[REDACTED:secret_pair]' done",
                "card 4111-1111-1111-1111 paid | card [REDACTED:card_number] paid",
                "order 4111-1111-1111-1112 is not a card | order 4111-1111-1111-1112 is not a card",
                "see TKT-1234 | see [T]",
                "env DB_PASSWORD=hunter2 x | env DB_PASSWORD=[REDACTED:secret_pair] x",
                "card 4111 1111 1111 1111 123 | card [REDACTED:card_number]",
                "qty 2 4111111111111111 | qty 2 [REDACTED:card_number]",
                "nothing secret here | nothing secret here"
            })
    void builtInAndConfiguredRulesReplaceWhatLooksLikeASecret(String in, String out) {
        assertThat(message(in)).isEqualTo(out);
    }

    @Test
    void secretsInRawJsonTextAreMaskedForDeadLetters() {
        assertThat(redactor.redactText("{\"message\":\"x\",\"fields\":{\"password\":\"hunter2\"}}"))
                .doesNotContain("hunter2");
        assertThat(redactor.redactText("{\"message\":\"login password=\\\"hunter2\\\" ok\"}"))
                .doesNotContain("hunter2");
    }

    @Test
    void topLevelIdentifiersAreRedactedToo() {
        LogRecord r = LogRecord.builder("m")
                .service("svc password=hunter2")
                .instanceId("AKIAIOSFODNN7EXAMPLE")
                .build();
        LogRecord out = redactor.redact(r).record();
        assertThat(out.service()).isEqualTo("svc password=[REDACTED:secret_pair]");
        assertThat(out.instanceId()).isEqualTo("[REDACTED:aws_access_key]");
    }

    @Test
    void aNumericValueOfASecretNamedFieldIsMaskedToo() {
        LogRecord r = LogRecord.builder("m").field("password", 12345678L).build();
        assertThat(redactor.redact(r).record().fields()).containsEntry("password", "[REDACTED:secret_field]");
    }

    @Test
    void aPrivateKeyBlockIsRemovedWhole() {
        String pem = "k -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB\nxyz\n-----END EC PRIVATE KEY----- end";
        assertThat(message(pem)).isEqualTo("k [REDACTED:private_key] end");
    }

    @Test
    void aFieldNamedLikeASecretIsMaskedWhateverItsValue() {
        LogRecord r = LogRecord.builder("m")
                .field("db.password", "plain")
                .field("user", "alice")
                .build();
        LogRecord out = redactor.redact(r).record();
        assertThat(out.fields())
                .containsEntry("db.password", "[REDACTED:secret_field]")
                .containsEntry("user", "alice");
    }

    @Test
    void aFieldTooLongToCheckIsWithheldAndNamed() {
        LogRecord r = LogRecord.builder("m")
                .field("blob", "x".repeat(500))
                .field("ok", "y")
                .build();
        Redactor.Result res = redactor.redact(r);
        assertThat(res.record().fields())
                .doesNotContainKey("blob")
                .containsEntry("ok", "y")
                .containsEntry(Redactor.WITHHELD_FIELD, "blob");
    }

    @Test
    void aMessageTooLongToCheckHoldsTheRecordBack() {
        Redactor.Result res = redactor.redact(LogRecord.builder("x".repeat(500)).build());
        assertThat(res.heldBack()).isTrue();
        assertThat(res.heldBackReason()).contains("max_scan_bytes");
    }

    @Test
    void aCardNumberHasTheIssuerPrefixAndLengthOfARealNetworkAndPassesLuhn() {
        assertThat(CardNumbers.isCard("4111111111111111")).isTrue();
        assertThat(CardNumbers.isCard("4111111111111112")).as("Luhn").isFalse();
        assertThat(CardNumbers.isCard("1234")).as("too short").isFalse();
        assertThat(CardNumbers.isCard("378282246310005")).as("Amex 15").isTrue();
        assertThat(CardNumbers.isCard("3782822463100050"))
                .as("Amex is 15 digits")
                .isFalse();
        assertThat(CardNumbers.isCard("2223003122003222"))
                .as("Mastercard 2-series")
                .isTrue();
        assertThat(CardNumbers.isCard("6011111111111117")).as("Discover").isTrue();
        assertThat(CardNumbers.isCard("3530111333300000")).as("JCB").isTrue();
        assertThat(CardNumbers.isCard("30569309025904")).as("Diners 14").isTrue();
        assertThat(CardNumbers.isCard("6200000000000005")).as("UnionPay").isTrue();
        assertThat(CardNumbers.isCard("1718000000000000008"))
                .as("no network starts with 1")
                .isFalse();
        assertThat(CardNumbers.isCard("9999999999999995")).as("nor with 9").isFalse();
    }
}
