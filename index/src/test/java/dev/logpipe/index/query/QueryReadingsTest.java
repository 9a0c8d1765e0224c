package dev.logpipe.index.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.logpipe.index.query.QueryNode.Bool;
import dev.logpipe.index.query.QueryNode.Clause;
import dev.logpipe.index.query.QueryNode.Exists;
import dev.logpipe.index.query.QueryNode.MatchAll;
import dev.logpipe.index.query.QueryNode.Occur;
import dev.logpipe.index.query.QueryNode.Prefix;
import dev.logpipe.index.query.QueryNode.Range;
import dev.logpipe.index.query.QueryNode.Regexp;
import dev.logpipe.index.query.QueryNode.Text;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * What logpipe reads into a query beyond the classic grammar (docs/search.md#what-logpipe-reads-into-a-query): the
 * things people type first mean what they meant, never a silent empty answer or a refusal.
 */
class QueryReadingsTest {
    static QueryNode tree(String q) {
        return ParsedQuery.parse(q).root();
    }

    static Text term(String field, String text) {
        return new Text(field, text, false, 0);
    }

    static Clause must(QueryNode n) {
        return new Clause(Occur.MUST, n);
    }

    static Clause mustNot(QueryNode n) {
        return new Clause(Occur.MUST_NOT, n);
    }

    @Test
    void aLoneStarIsEverythingAndAFieldStarIsTheFieldHavingAValue() {
        assertThat(tree("*")).isEqualTo(new MatchAll());
        assertThat(tree("*:*")).isEqualTo(new MatchAll());
        assertThat(tree("level:*")).isEqualTo(new Exists("level"));
        assertThat(tree("fields.took_ms:*")).isEqualTo(new Exists("fields.took_ms"));
        assertThat(tree("took_ms:*")).isEqualTo(new Exists("fields.took_ms"));
        assertThat(tree("* AND level:ERROR"))
                .isEqualTo(new Bool(List.of(must(new MatchAll()), must(term("level", "ERROR")))));
        // still refused: a pattern that starts with a wildcard and goes on (every term of the field would be walked)
        assertThatThrownBy(() -> ParsedQuery.parse("*a"))
                .isInstanceOf(InvalidQuery.class)
                .hasMessageContaining("not allowed as first character");
        assertThatThrownBy(() -> ClassicQueries.parse("*")).isInstanceOf(InvalidQuery.class);
    }

    @Test
    void aPurelyNegativeQueryIsEverythingExcept() {
        Bool notInfo = new Bool(List.of(must(new MatchAll()), mustNot(term("level", "INFO"))));
        assertThat(tree("NOT level:INFO")).isEqualTo(notInfo);
        assertThat(tree("-level:INFO")).isEqualTo(notInfo);
        assertThat(tree("!level:INFO")).isEqualTo(notInfo);
        assertThat(tree("NOT level:INFO AND NOT level:DEBUG"))
                .isEqualTo(new Bool(List.of(
                        must(new MatchAll()), mustNot(term("level", "INFO")), mustNot(term("level", "DEBUG")))));
        // at any depth: a negative group is everything except, then required
        assertThat(tree("service:auth AND (NOT level:INFO)"))
                .isEqualTo(new Bool(List.of(must(term("service", "auth")), must(notInfo))));
        // a query with something positive is as before
        assertThat(tree("service:auth NOT level:INFO"))
                .isEqualTo(new Bool(
                        List.of(new Clause(Occur.SHOULD, term("service", "auth")), mustNot(term("level", "INFO")))));
        assertThat(ParsedQuery.parse("NOT level:INFO").requiredLabels()).isEmpty();
    }

    @Test
    void lowercaseOperatorWordsBetweenClausesAreOperators() {
        Bool errorAndAuth = new Bool(List.of(must(term("level", "ERROR")), must(term("service", "auth"))));
        assertThat(tree("level:ERROR and service:auth")).isEqualTo(errorAndAuth);
        assertThat(tree("level:ERROR And service:auth")).isEqualTo(errorAndAuth);
        assertThat(tree("level:ERROR AND service:auth")).isEqualTo(errorAndAuth);
        assertThat(tree("level:ERROR or level:FATAL")).isEqualTo(tree("level:ERROR OR level:FATAL"));
        assertThat(tree("not level:INFO")).isEqualTo(tree("NOT level:INFO"));
        assertThat(tree("service:auth and not level:INFO")).isEqualTo(tree("service:auth AND NOT level:INFO"));
        assertThat(tree("(a or b) and c")).isEqualTo(tree("(a OR b) AND c"));
        assertThat(tree("level:(error or warn)")).isEqualTo(tree("level:(ERROR OR WARN)"));
        assertThat(ParsedQuery.parse("level:error and service:auth").requiredLabels())
                .isEqualTo(Map.of("level", Set.of("ERROR"), "service", Set.of("auth")));
        // words where no operator can stand, quoted, escaped, a field's value, in a range or an expression
        assertThat(tree("\"and\"")).isEqualTo(new Text(null, "and", true, 0));
        assertThat(tree("cats \"and\" dogs")).isEqualTo(tree("cats \"and\" dogs"));
        assertThat(tree("message:and")).isEqualTo(term("message", "and"));
        assertThat(tree("and")).isEqualTo(term(null, "and"));
        assertThat(tree("timeout or")).isEqualTo(term(null, "timeout or"));
        assertThat(tree("fields.x:[and TO or]")).isEqualTo(new Range("fields.x", "and", "or", true, true));
        assertThat(tree("raw:/a and b/")).isEqualTo(new Regexp("raw", "a and b"));
        assertThat(tree("android OR notice")).isEqualTo(tree("android OR notice"));
        // a refusal quotes what was written, at the same column
        assertThatThrownBy(() -> ParsedQuery.parse("a and (b"))
                .isInstanceOf(InvalidQuery.class)
                .hasMessageContaining("Cannot parse 'a and (b'");
    }

    @Test
    void levelValuesAreMatchedAsRecordsHoldThemNormalized() {
        assertThat(tree("level:error")).isEqualTo(term("level", "ERROR"));
        assertThat(tree("level:Warning")).isEqualTo(term("level", "WARN"));
        assertThat(tree("level:\"err\"")).isEqualTo(new Text("level", "ERROR", true, 0));
        assertThat(tree("level:unknown")).isEqualTo(term("level", "UNKNOWN"));
        assertThat(tree("level:nonsense")).isEqualTo(term("level", "NONSENSE"));
        assertThat(tree("level:err*")).isEqualTo(new Prefix("level", "ERR"));
        assertThat(ParsedQuery.parse("level:error").requiredLabels()).isEqualTo(Map.of("level", Set.of("ERROR")));
        // other keywords keep their case: service, region and the rest are stored as sent
        assertThat(tree("service:Auth")).isEqualTo(term("service", "Auth"));
    }

    @Test
    void aBareNameThatIsNoTopLevelFieldIsAStructuredFieldAndTheQuerySaysSo() {
        ParsedQuery q = ParsedQuery.parse("took_ms:>500 AND level:ERROR AND http.status:503");
        assertThat(q.root())
                .isEqualTo(new Bool(List.of(
                        must(new Range("fields.took_ms", "500", null, false, true)),
                        must(term("level", "ERROR")),
                        must(term("fields.http.status", "503")))));
        assertThat(q.resolvedFields())
                .containsExactly(
                        Map.entry("took_ms", "fields.took_ms"), Map.entry("http.status", "fields.http.status"));
        assertThat(q.fieldNames()).containsExactly("fields.took_ms", "level", "fields.http.status");
        assertThat(ParsedQuery.parse("fields.took_ms:>500 AND region:us-east-1").resolvedFields())
                .isEmpty();
        assertThat(ParsedQuery.parse("timeout *:* (x:* OR -y:/a/^2)").fieldNames())
                .containsExactly("fields.x", "fields.y");
        // a resolved range's numeric bounds are read as a structured field's are
        assertThatThrownBy(() -> ParsedQuery.parse("took_ms:>1e-300000000")).isInstanceOf(InvalidQuery.class);
    }
}
