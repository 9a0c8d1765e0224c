package dev.logpipe.index.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.schema.Fields;
import org.junit.jupiter.api.Test;

class ParsedQueriesTest {
    @Test
    void longQueriesNeverHoldMoreTextThanTheBoundAndParseTheSameFromTheCache() {
        String words = "word ".repeat(800); // ~4,000 characters, the query service's longest q
        for (int i = 0; i < 200; i++) {
            ParsedQueries.parse(Fields.MESSAGE, words + "distinct" + i);
            assertThat(ParsedQueries.cachedChars()).isLessThanOrEqualTo(ParsedQueries.MAX_CHARS);
        }
        String q = words + "again";
        assertThat(ParsedQueries.parse(Fields.MESSAGE, q)).isEqualTo(ParsedQueries.parse(Fields.MESSAGE, q));
        assertThat(ParsedQueries.cachedChars()).isPositive();
    }
}
