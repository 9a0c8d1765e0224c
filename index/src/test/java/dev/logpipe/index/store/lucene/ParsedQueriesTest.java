package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.schema.Fields;
import org.junit.jupiter.api.Test;

class ParsedQueriesTest {
    @Test
    void longQueriesNeverHoldMoreThanTheBoundAndParseTheSameFromTheCache() {
        String words = "word ".repeat(800); // ~4,000 characters, the query service's longest q
        for (int i = 0; i < 200; i++) {
            ParsedQueries.parse(Fields.MESSAGE, words + "distinct" + i);
            assertThat(ParsedQueries.cachedBytes()).isLessThanOrEqualTo(ParsedQueries.MAX_BYTES);
        }
        String q = words + "again";
        assertThat(ParsedQueries.parse(Fields.MESSAGE, q)).isEqualTo(ParsedQueries.parse(Fields.MESSAGE, q));
        assertThat(ParsedQueries.cachedBytes()).isPositive();
    }

    @Test
    void aShortPatternIsWeighedByItsCompiledAutomatonNotByItsText() {
        String text = "/[a-z]{1,12}[0-9]{1,12}[a-f]{1,12}/";
        String key = Fields.MESSAGE + '\u0000' + text;
        long weight = ParsedQueries.weigh(key, new SchemaQueryParser(Fields.MESSAGE).parseQuery(text));
        assertThat(weight).isGreaterThan(100L * text.length());

        for (int i = 0; i < 600; i++) {
            ParsedQueries.parse(Fields.MESSAGE, "/[a-z]{1,12}[0-9]{1,12}[a-f]{1," + (12 + i % 40) + "}/ n" + i);
            assertThat(ParsedQueries.cachedBytes()).isLessThanOrEqualTo(ParsedQueries.MAX_BYTES);
        }
    }

    @Test
    void excludedClausesAreWeighedToo() {
        String key = Fields.MESSAGE + '\u0000';
        long plain = ParsedQueries.weigh(key, new SchemaQueryParser(Fields.MESSAGE).parseQuery("alpha"));
        long withNot = ParsedQueries.weigh(
                key, new SchemaQueryParser(Fields.MESSAGE).parseQuery("alpha -/[a-z]{1,12}[0-9]{1,12}/"));
        assertThat(withNot).isGreaterThan(plain + 1_000);
    }
}
