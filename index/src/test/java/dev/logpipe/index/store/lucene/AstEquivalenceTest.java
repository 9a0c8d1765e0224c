package dev.logpipe.index.store.lucene;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.index.query.ClassicQueries;
import dev.logpipe.index.query.InvalidQuery;
import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;

/**
 * The query language's tree, compiled for Lucene, is today's query: for every query of the tests and docs
 * ({@code query-corpus.json}), hostile generated text and queries at the clause cap,
 * {@code LuceneQueries.compile(f, ClassicQueries.parse(q))} equals {@code new SchemaQueryParser(f).parseQuery(q)} by
 * {@code Query.equals}, or both refuse it with the same message (and the tree's parser refuses it itself, with
 * {@link TodaysQuerySyntax}'s problem and position); and {@code requiredLabels()} is {@link TodaysQueryLabels}' answer.
 * The classic tree is the reference; logpipe's readings on top of it ({@code ParsedQuery.parse}: {@code *}, negative
 * queries, operator words, {@code level} values, bare names) are pinned by {@code QueryReadingsTest} and, on both
 * engines, by {@code QueryParityTest}.
 */
class AstEquivalenceTest {
    static final List<String> DEFAULT_FIELDS = List.of(Fields.MESSAGE, Fields.DL_RAW);

    /** What a parser made of a text: a query, or a refusal's message. */
    record Outcome(Query query, String refusal) {}

    static Outcome today(String defaultField, String q) {
        if (q.isBlank()) {
            return new Outcome(new MatchAllDocsQuery(), null); // what ShardSearcher searches for a blank query
        }
        try {
            return new Outcome(new SchemaQueryParser(defaultField).parseQuery(q), null);
        } catch (IllegalArgumentException e) {
            return new Outcome(null, e.getMessage());
        } catch (StackOverflowError e) {
            return new Outcome(null, "query is nested too deeply");
        }
    }

    static Outcome throughTheTree(String defaultField, String q) {
        try {
            return new Outcome(LuceneQueries.compile(defaultField, ClassicQueries.parse(q)), null);
        } catch (InvalidQuery e) {
            return new Outcome(null, e.getMessage());
        }
    }

    static void assertSameAsToday(String q) {
        for (String f : DEFAULT_FIELDS) {
            Outcome before = today(f, q);
            Outcome after = throughTheTree(f, q);
            assertThat(after).as("default field %s, query [%s]", f, q).isEqualTo(before);
        }
        Optional<TodaysQuerySyntax.Problem> problem = TodaysQuerySyntax.check(q);
        Optional<TodaysQuerySyntax.Problem> parsed;
        try {
            ClassicQueries.parse(q);
            parsed = Optional.empty();
        } catch (InvalidQuery e) {
            InvalidQuery.Problem p = e.problem();
            parsed = Optional.of(new TodaysQuerySyntax.Problem(p.message(), p.line(), p.column()));
        }
        assertThat(parsed).as("the problem of [%s], refused when parsed", q).isEqualTo(problem);
        Map<String, Set<String>> labels;
        try {
            labels = ClassicQueries.parse(q).requiredLabels();
        } catch (InvalidQuery e) {
            labels = Map.of();
        }
        assertThat(labels).as("labels required by [%s]", q).isEqualTo(TodaysQueryLabels.required(q));
    }

    static List<String> corpus() throws IOException {
        try (InputStream in = AstEquivalenceTest.class.getResourceAsStream("/query-corpus.json")) {
            JsonNode queries = new ObjectMapper().readTree(in).get("queries");
            List<String> out = new ArrayList<>();
            queries.forEach(n -> out.add(n.asText()));
            return out;
        }
    }

    @Example
    void everyQueryOfTheTestsAndTheDocsCompilesToTodaysQuery() throws IOException {
        List<String> corpus = corpus();
        assertThat(corpus)
                .hasSizeGreaterThan(1000)
                .contains("fields.took_ms:>500", "level:ERROR", "\"10.0.0.1\"", "hello-ab12-*");
        corpus.forEach(AstEquivalenceTest::assertSameAsToday);
    }

    @Example
    void theQuirksOfTheClassicGrammarSurvive() {
        List.of(
                        "a AND .", // a clause that analyses to nothing is dropped; a lone first clause stands alone
                        ". AND a", // ... but a required one stays a boolean of one clause
                        "a OR . AND b", // the AND reaches back past the dropped clause
                        "a b \"\" AND c", // ... and requires the last of the words before it
                        "a b -c", // words side by side are one clause each
                        "(a b) c", // ... but a group of words is one clause
                        "foo,bar -baz", // a term of two tokens is one clause
                        "foo,bar baz", // ... but spliced among words
                        "level:(ERROR WARN)", // a keyword reads words whole
                        "level:\"\"",
                        "level:ERROR OR .",
                        "fields.x:(>5 b)",
                        ">5",
                        ">",
                        ">=",
                        "fields.n:>*",
                        "fields.n:[* TO 5]",
                        "fields.n:[\"*\" TO 5]",
                        "event_time:>now",
                        "event_time:[* TO 2026-12-01T00:00:00z]",
                        "fields.n:>1e-300000000",
                        "fields.n:[1e99999 TO *]",
                        "fields.a#b:x*",
                        "fields.a#b:>3",
                        "*:*",
                        "*:foo",
                        "*",
                        "*a",
                        "?a",
                        "/[/",
                        "/(.*){20}/",
                        "/(.*){20}/ AND /(.*){20}/",
                        "a*b*c*d*e*f*g*h*i*j*k*l*m*n*o*p*q*r*s*t*u*v*w*x*y*z*",
                        "a~",
                        "a~0.5",
                        "a~3",
                        "a~1.5",
                        "\"a b\"~2^3",
                        "a^99999999999999999999999999999999999999999999",
                        "(.)^2 a",
                        "(a)^2^3",
                        "\\u00",
                        "a\\",
                        "a\\ b c",
                        "message:A raw:B detail:C reason:D",
                        "MESSAGE:.",
                        "level:\uD800",
                        "+a",
                        "-a",
                        "NOT a",
                        "a AND NOT b OR c",
                        "&& ||",
                        ".",
                        "\"\"",
                        "()",
                        "(".repeat(20_000))
                .forEach(AstEquivalenceTest::assertSameAsToday);
    }

    @Example
    void queriesAtTheClauseCapAreRefusedAsTodayWhenParsed() {
        int max = org.apache.lucene.search.IndexSearcher.getMaxClauseCount();
        List<String> atCap = new ArrayList<>();
        for (int n : List.of(max, max + 1)) {
            atCap.add(words(n, " OR ", "t"));
            atCap.add(words(n, " ", "w"));
            atCap.add(words(n, ",", "c"));
            atCap.add(words(n, " ", "level:v"));
            atCap.add("x:(" + words(n, " ", "w") + ")");
            atCap.add("\"" + words(n, " ", "p") + "\"");
            atCap.add(words(n / 2, " ", "a") + " -x " + words(n - n / 2 - 1, " ", "b"));
            atCap.add(words(n - 1, " ", "w") + " .");
            atCap.add(words(n, " OR ", "t") + " OR .");
        }
        assertThat(atCap).hasSize(18);
        int refused = 0;
        for (String q : atCap) {
            assertSameAsToday(q);
            if (today(Fields.MESSAGE, q).refusal() != null) {
                refused++;
                assertThat(today(Fields.MESSAGE, q).refusal()).endsWith("too many boolean clauses");
            }
        }
        // of 1,025: OR'ed terms, words, comma-joined tokens, label terms, words around a negation, and OR'ed terms with
        // one that analyses to nothing; a keyword's words and a phrase are one clause, and 1,024 words and a "." fit
        assertThat(refused).as("queries of 1,025 clauses").isEqualTo(6);
    }

    private static String words(int n, String separator, String prefix) {
        return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.joining(separator));
    }

    @Provide
    Arbitrary<String> queries() {
        Arbitrary<String> pieces = Arbitraries.of(
                "level:",
                "ERROR",
                "(",
                ")",
                "\"",
                "*",
                "?",
                "~",
                "^",
                "[",
                "]",
                "{",
                "}",
                " TO ",
                " AND ",
                " OR ",
                "NOT ",
                "-",
                "+",
                "\\",
                "/",
                ":",
                "fields.took_ms:",
                ">",
                "<=",
                "event_time:",
                "2026-12-01T00:00:00Z",
                "now",
                "a*",
                "*a",
                "/[a-z]+/",
                "/(.*){20}/",
                "~2",
                "é",
                "\u0000",
                "#",
                "fields.a#b:",
                "_source:",
                "tenant_id:",
                "record_id:",
                "CO-99*",
                " ",
                "10.0.0.1",
                "&&",
                "||",
                // beyond FuzzTest's: words, texts that analyse to nothing, labels, numbers, boosts
                "a",
                "b c",
                ".",
                ",",
                "\"\"",
                "service:",
                "raw:",
                "message:",
                "5",
                "1e400",
                "0.5",
                "^2",
                "~0.5",
                "foo,bar",
                "*:",
                " -");
        return Arbitraries.oneOf(
                pieces.list().ofMaxSize(14).map(l -> String.join("", l)),
                Arbitraries.strings().ofMaxLength(40),
                Arbitraries.strings().withChars("ab .,:()\"-+*?~^<>=[]{}\\/").ofMaxLength(30));
    }

    @Property(tries = 3000)
    void anyTextCompilesToTodaysQueryOrIsRefusedAlike(@ForAll("queries") String q) {
        assertSameAsToday(q);
    }

    /** logpipe's readings never turn a text into anything but a query Lucene builds, or a refusal with a reason. */
    @Property(tries = 2000)
    void anyTextWithLogpipesReadingsCompilesOrIsRefusedAsInvalid(@ForAll("queries") String q) {
        for (String f : DEFAULT_FIELDS) {
            try {
                assertThat(LuceneQueries.compile(f, ParsedQuery.parse(q))).isNotNull();
            } catch (InvalidQuery refused) {
                assertThat(refused.problem().message()).isNotBlank();
            }
        }
    }
}
