package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import org.apache.lucene.search.Query;
import org.junit.jupiter.api.Test;

class CompiledQueriesTest {
    private final CompiledQueries queries = new CompiledQueries();

    private Query compile(String text) {
        return queries.compile(Fields.MESSAGE, ParsedQuery.parse(text));
    }

    @Test
    void longQueriesNeverHoldMoreThanTheBoundAndCompileTheSameFromTheCache() {
        String words = "word ".repeat(800); // ~4,000 characters, the query service's longest q
        for (int i = 0; i < 200; i++) {
            compile(words + "distinct" + i);
            assertThat(queries.cachedBytes()).isLessThanOrEqualTo(CompiledQueries.MAX_BYTES);
        }
        String q = words + "again";
        assertThat(compile(q)).isEqualTo(compile(q));
        assertThat(queries.cachedBytes()).isPositive();
    }

    @Test
    void aCachedQueryIsNotCompiledAgain() {
        compile("alpha OR beta");
        long compiled = queries.compiles();
        compile("alpha OR beta");
        assertThat(queries.compiles()).isEqualTo(compiled);
        queries.compile(Fields.DL_RAW, ParsedQuery.parse("alpha OR beta")); // another default field: another query
        assertThat(queries.compiles()).isEqualTo(compiled + 1);
    }

    @Test
    void aShortPatternIsWeighedByItsCompiledAutomatonNotByItsText() {
        String text = "/[a-z]{1,12}[0-9]{1,12}[a-f]{1,12}/";
        ParsedQuery parsed = ParsedQuery.parse(text);
        long weight = CompiledQueries.weigh(Fields.MESSAGE, parsed, LuceneQueries.compile(Fields.MESSAGE, parsed));
        assertThat(weight).isGreaterThan(100L * text.length());

        for (int i = 0; i < 600; i++) {
            compile("/[a-z]{1,12}[0-9]{1,12}[a-f]{1," + (12 + i % 40) + "}/ n" + i);
            assertThat(queries.cachedBytes()).isLessThanOrEqualTo(CompiledQueries.MAX_BYTES);
        }
    }

    @Test
    void excludedClausesAreWeighedToo() {
        ParsedQuery alpha = ParsedQuery.parse("alpha");
        ParsedQuery withNot = ParsedQuery.parse("alpha -/[a-z]{1,12}[0-9]{1,12}/");
        long plain =
                CompiledQueries.weigh(Fields.MESSAGE, ParsedQuery.ALL, LuceneQueries.compile(Fields.MESSAGE, alpha));
        long excluded =
                CompiledQueries.weigh(Fields.MESSAGE, ParsedQuery.ALL, LuceneQueries.compile(Fields.MESSAGE, withNot));
        assertThat(excluded).isGreaterThan(plain + 1_000);
    }
}
