package dev.logpipe.index.query;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequiredTokensTest {
    private static List<Set<String>> required(String q) {
        return ParsedQuery.parse(q).requiredMessageTokens();
    }

    @ParameterizedTest(name = "{0} requires {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "needlexyz | [[needlexyz]]",
                "NeedleXYZ | [[needlexyz]]",
                "message:CO-9931 | [[co-9931]]",
                "\"payment failed\" | [[payment], [failed]]",
                "needlexyz AND level:ERROR | [[needlexyz]]",
                "alpha OR beta | [[alpha, beta]]",
                "(alpha OR beta) AND gamma | [[alpha, beta], [gamma]]",
                "needlexyz^2 | [[needlexyz]]",
            })
    void aQueryRequiresTheTokensEveryMatchHolds(String query, String expected) {
        assertThat(required(query).toString()).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} requires nothing")
    @CsvSource(
            delimiter = '|',
            value = {
                "*",
                "level:ERROR",
                "-needlexyz",
                "needle*",
                "needlexyz~1",
                "alpha OR level:ERROR",
                "service:needlexyz",
                "user=u12 took",
            })
    void aQueryItCannotReadForSureRequiresNothing(String query) {
        assertThat(required(query)).isEmpty();
    }
}
