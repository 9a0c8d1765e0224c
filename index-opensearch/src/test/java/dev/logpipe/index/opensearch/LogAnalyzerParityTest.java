package dev.logpipe.index.opensearch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.index.analysis.LogAnalyzer;
import dev.logpipe.index.opensearch.testing.OpenSearchExtension;
import dev.logpipe.testkit.Integration;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The index template's log analyzers give, for every text, the same terms at the same positions as {@link LogAnalyzer}
 * (docs/search.md#analyzer), so a query finds the same records on both engines: checked on a real OpenSearch node with
 * its {@code _analyze} API over the examples of docs/search.md, 1,000 lines of real system logs and generated text.
 */
@Integration
@ExtendWith(OpenSearchExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogAnalyzerParityTest {
    private static final String INDEX = "analyzer-parity";
    private OpenSearchExtension.Node node;

    @BeforeAll
    void createIndex(OpenSearchExtension.Node node) throws Exception {
        this.node = node;
        node.send("DELETE", "/" + INDEX, null);
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.putObject("settings").putObject("index").set("analysis", IndexTemplate.analysis());
        OpenSearchExtension.Answer created = node.send("PUT", "/" + INDEX, body);
        assertThat(created.status()).as("%s", created.body()).isEqualTo(200);
    }

    /** Terms by position: "position:term", the terms of a position sorted (their order there does not matter). */
    static List<String> ours(Analyzer a, String text) throws IOException {
        TreeMap<Integer, List<String>> byPosition = new TreeMap<>();
        try (TokenStream ts = a.tokenStream("message", text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            PositionIncrementAttribute inc = ts.addAttribute(PositionIncrementAttribute.class);
            ts.reset();
            int position = -1;
            while (ts.incrementToken()) {
                position += inc.getPositionIncrement();
                byPosition.computeIfAbsent(position, k -> new ArrayList<>()).add(term.toString());
            }
            ts.end();
        }
        return flatten(byPosition);
    }

    List<String> theirs(String analyzer, String text) throws Exception {
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.put("analyzer", analyzer).put("text", text);
        OpenSearchExtension.Answer a = node.send("POST", "/" + INDEX + "/_analyze", body);
        assertThat(a.status()).as("%s", a.body()).isEqualTo(200);
        TreeMap<Integer, List<String>> byPosition = new TreeMap<>();
        for (JsonNode t : a.body().path("tokens")) {
            byPosition
                    .computeIfAbsent(t.path("position").asInt(), k -> new ArrayList<>())
                    .add(t.path("token").asText());
        }
        return flatten(byPosition);
    }

    private static List<String> flatten(TreeMap<Integer, List<String>> byPosition) {
        List<String> out = new ArrayList<>();
        byPosition.forEach((p, terms) -> terms.stream().sorted().forEach(t -> out.add(p + ":" + t)));
        return out;
    }

    void assertSame(String text) throws Exception {
        assertThat(theirs(IndexTemplate.LOG_ANALYZER, text))
                .as("indexing %s", text)
                .isEqualTo(ours(LogAnalyzer.forIndexing(), text));
        assertThat(theirs(IndexTemplate.LOG_QUERY_ANALYZER, text))
                .as("a query of %s", text)
                .isEqualTo(ours(LogAnalyzer.forQuery(), text));
    }

    @Test
    void theExamplesOfTheSearchDocsGiveTheSameTerms() throws Exception {
        for (String text : List.of(
                "order_id=CO-9931",
                "10.0.0.1",
                "/api/v1/users",
                "user@example.com",
                "java.net.SocketTimeoutException:",
                "hello-ab12-17",
                "order_id=CO-9931, (10.0.0.1) /api/v1/users.",
                "\"timed out order_id\"",
                "Grüße, naïve café",
                "a --- b ... c",
                "-leading and trailing- .joiners. @only@ _",
                "x".repeat(255) + " " + "y".repeat(300))) {
            assertSame(text);
        }
    }

    @Test
    void realSystemLogLinesGiveTheSameTerms() throws Exception {
        List<String> lines;
        try (InputStream in = getClass().getResourceAsStream("/loghub-sample.log")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .toList();
        }
        assertThat(lines).hasSize(1000);
        for (String line : lines) {
            assertSame(line.strip());
        }
    }

    @Test
    void generatedTextGivesTheSameTerms() throws Exception {
        // letters, digits, every joiner, separators, non-ASCII letters and digits, a combining mark, an emoji
        String alphabet = "aZ09._@/-_ =:,;\"'()[]|&\tüßİΣσ٣\u0301é";
        String[] pieces = {"😀", "CO-9931", "10.0.0.1", "--", ".."};
        Random random = new Random(25);
        for (int i = 0; i < 400; i++) {
            StringBuilder s = new StringBuilder();
            int n = 1 + random.nextInt(60);
            for (int k = 0; k < n; k++) {
                if (random.nextInt(10) == 0) {
                    s.append(pieces[random.nextInt(pieces.length)]);
                } else {
                    s.append(alphabet.charAt(random.nextInt(alphabet.length())));
                }
            }
            assertSame(s.toString());
        }
    }
}
