package dev.logpipe.index.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Boost;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Fuzzy;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import dev.logpipe.index.query.QueryNode.Wildcard;
import dev.logpipe.index.query.QueryNode.Words;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The tree says what the user wrote, before analysis; a refusal says why and where, as users have always been told. */
class ParsedQueryTest {
    static QueryNode tree(String q) {
        return ParsedQuery.parse(q).root();
    }

    static Text term(String field, String text) {
        return new Text(field, text, false, 0);
    }

    @Test
    void eachKindOfClauseIsANodeOfItsOwn() {
        assertThat(tree("timeout")).isEqualTo(term(null, "timeout"));
        assertThat(tree("\"read timed out\"~2")).isEqualTo(new Text(null, "read timed out", true, 2));
        assertThat(tree("CO-99*")).isEqualTo(new Prefix(null, "CO-99"));
        assertThat(tree("hello-ab12-?7")).isEqualTo(new Wildcard(null, "hello-ab12-?7"));
        assertThat(tree("raw:/[a-z]+/")).isEqualTo(new Regexp("raw", "[a-z]+"));
        assertThat(tree("timeout~1")).isEqualTo(new Fuzzy(null, "timeout", 1f));
        assertThat(tree("*:*")).isEqualTo(new MatchAll());
        assertThat(tree("fields.took_ms:>500")).isEqualTo(new Range("fields.took_ms", "500", null, false, true));
        assertThat(tree("event_time:[* TO 2026-12-02T00:00:00Z}"))
                .isEqualTo(new Range("event_time", null, "2026-12-02T00:00:00Z", true, false));
        assertThat(tree("fields.http\\/path:\"/x\"")).isEqualTo(new Text("fields.http/path", "/x", true, 0));
    }

    @Test
    void operatorsBecomeOccurrencesAsTheClassicParserDecidesThem() {
        assertThat(tree("level:ERROR AND service:api"))
                .isEqualTo(new Bool(List.of(
                        new Clause(Occur.MUST, term("level", "ERROR")),
                        new Clause(Occur.MUST, term("service", "api")))));
        assertThat(tree("a OR b NOT c"))
                .isEqualTo(new Bool(List.of(
                        new Clause(Occur.SHOULD, term(null, "a")),
                        new Clause(Occur.SHOULD, term(null, "b")),
                        new Clause(Occur.MUST_NOT, term(null, "c")))));
        assertThat(tree("(a OR b)^2"))
                .isEqualTo(new Boost(
                        new Bool(List.of(
                                new Clause(Occur.SHOULD, term(null, "a")), new Clause(Occur.SHOULD, term(null, "b")))),
                        2f));
    }

    @Test
    void wordsSideBySideGoTogetherAndTextWithoutATokenIsNoClause() {
        assertThat(tree("connection refused")).isEqualTo(term(null, "connection refused"));
        assertThat(tree("connection refused -retry"))
                .isEqualTo(new Bool(List.of(
                        new Clause(Occur.SHOULD, new Words(null, "connection refused")),
                        new Clause(Occur.MUST_NOT, term(null, "retry")))));
        assertThat(tree("timeout AND .")).isEqualTo(term(null, "timeout"));
        assertThat(tree(". AND timeout")).isEqualTo(new Bool(List.of(new Clause(Occur.MUST, term(null, "timeout")))));
        assertThat(tree("level:.")).isEqualTo(term("level", ".")); // a keyword is read whole
        assertThat(tree(".")).isEqualTo(new Bool(List.of()));
        assertThat(tree("  ")).isEqualTo(new MatchAll());
        assertThat(ParsedQuery.ALL.root()).isEqualTo(new MatchAll());
    }

    @Test
    void aRefusalSaysWhyAndWhere() {
        assertThatThrownBy(() -> ParsedQuery.parse("level:(ERROR"))
                .isInstanceOf(InvalidQuery.class)
                .hasMessageStartingWith("query does not parse: Cannot parse 'level:(ERROR': Encountered \"<EOF>\"")
                .extracting(e -> ((InvalidQuery) e).problem())
                .satisfies(p -> {
                    assertThat(p.line()).isEqualTo(1);
                    assertThat(p.column()).isEqualTo(12);
                    assertThat(p.message()).doesNotContain("\n");
                });
        assertThatThrownBy(() -> ParsedQuery.parse("fields.n:>1e-300000000"))
                .hasMessage("query does not parse: fields.n: a numeric bound's exponent must be within ±10000, was"
                        + " 1e-300000000");
        assertThatThrownBy(() -> ParsedQuery.parse("event_time:>yesterday"))
                .hasMessage("query does not parse: Cannot parse 'event_time:>yesterday': a time must be epoch"
                        + " milliseconds or RFC 3339, was \"yesterday\"");
        assertThatThrownBy(() -> ParsedQuery.parse("*rror"))
                .hasMessageEndingWith("'*' or '?' not allowed as first character in WildcardQuery");
        assertThatThrownBy(() -> ParsedQuery.parse("(".repeat(100_000)))
                .isInstanceOf(InvalidQuery.class)
                .extracting(e -> ((InvalidQuery) e).problem())
                .isEqualTo(new InvalidQuery.Problem("query is nested too deeply", null, null));
    }

    @Test
    void requiredLabelsAreThoseEveryMatchHolds() {
        assertThat(ParsedQuery.parse("level:ERROR AND service:api timeout").requiredLabels())
                .isEqualTo(Map.of("level", Set.of("ERROR"), "service", Set.of("api")));
        assertThat(ParsedQuery.parse("level:ERROR OR level:FATAL").requiredLabels())
                .isEqualTo(Map.of("level", Set.of("ERROR", "FATAL")));
        assertThat(ParsedQuery.parse("level:ERROR OR service:api").requiredLabels())
                .isEmpty();
        assertThat(ParsedQuery.parse("NOT level:ERROR").requiredLabels()).isEmpty();
        assertThat(ParsedQuery.parse("level:ERR*").requiredLabels()).isEmpty();
        assertThat(ParsedQuery.ALL.requiredLabels()).isEmpty();
    }
}
