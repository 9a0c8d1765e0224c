package dev.logpipe.index.analysis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.logpipe.index.query.ParsedQuery;
import dev.logpipe.index.schema.Fields;
import dev.logpipe.index.store.lucene.IndexSchema;
import dev.logpipe.index.store.lucene.LuceneQueries;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The analyzer rules of docs/search.md, on exactly the examples of the indexer issue. */
class LogAnalyzerTest {
    static final String[] MESSAGES = {
        "payment provider timed out order_id=CO-9931",
        "connect to 10.0.0.1 failed",
        "GET /api/v1/users 200",
        "mail from user@example.com bounced",
        "caused by java.net.SocketTimeoutException: Read timed out",
        "greeting hello-ab12-17 sent",
    };
    static IndexSearcher searcher;

    @BeforeAll
    static void index() throws IOException {
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(IndexSchema.indexAnalyzer()))) {
            for (String m : MESSAGES) {
                Document d = new Document();
                d.add(new TextField(Fields.MESSAGE, m, Field.Store.YES));
                w.addDocument(d);
            }
        }
        searcher = new IndexSearcher(DirectoryReader.open(dir));
    }

    private static List<String> found(String query) throws IOException {
        List<String> out = new ArrayList<>();
        for (var sd : searcher.search(LuceneQueries.compile(Fields.MESSAGE, ParsedQuery.parse(query)), 10).scoreDocs) {
            out.add(searcher.storedFields().document(sd.doc).get(Fields.MESSAGE));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"CO-9931", "co-9931", "9931", "co", "order_id", "order_id=CO-9931"})
    void orderIdIsFoundWholeAndByItsParts(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[0]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "\"10.0.0.1\"", "10"})
    void ipAddressIsFoundWholeAndByItsParts(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[1]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\\/api\\/v1\\/users", "\"/api/v1/users\"", "api", "v1", "users"})
    void urlPathIsFoundWholeAndByItsParts(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[2]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"user@example.com", "USER@EXAMPLE.COM", "user", "example", "com"})
    void emailIsFoundWholeAndByItsParts(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[3]);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "java.net.SocketTimeoutException",
                "sockettimeoutexception",
                "SocketTimeoutException",
                "java",
                "net"
            })
    void javaClassNameIsFoundWholeAndByItsParts(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[4]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"hello-ab12-17", "HELLO-AB12-17", "hello", "ab12", "17", "hello-ab12-*", "Hello-AB12-*"})
    void hyphenatedTokenIsFoundWholeByItsPartsAndByWildcard(String q) throws IOException {
        assertThat(found(q)).containsExactly(MESSAGES[5]);
    }

    @Test
    void phrasesStillMatchAcrossCompoundTokens() throws IOException {
        assertThat(found("\"timed out order_id\"")).containsExactly(MESSAGES[0]);
        assertThat(found("\"Read timed out\"")).containsExactly(MESSAGES[4]);
    }

    @Test
    void aPartDoesNotMatchAnotherWhole() throws IOException {
        assertThat(found("ab12-17")).isEmpty(); // parts are the pieces between joiners, not every sub-compound
        assertThat(found("9932")).isEmpty();
    }

    @Test
    void indexingEmitsTheWholeThenItsPartsAtTheSamePosition() throws IOException {
        assertThat(tokens(LogAnalyzer.forIndexing(), "order_id=CO-9931, (10.0.0.1) /api/v1/users."))
                .containsExactly(
                        "order_id",
                        "order",
                        "id",
                        "co-9931",
                        "co",
                        "9931",
                        "10.0.0.1",
                        "10",
                        "0",
                        "0",
                        "1",
                        "api/v1/users",
                        "api",
                        "v1",
                        "users");
        assertThat(tokens(LogAnalyzer.forQuery(), "order_id=CO-9931, /api/v1/users."))
                .containsExactly("order_id", "co-9931", "api/v1/users");
    }

    @Test
    void theTokenSinkSeesTheIndexTokensInOrder() {
        for (String text : new String[] {
            "order_id=CO-9931, (10.0.0.1) /api/v1/users.", "x".repeat(600) + " tail", "Grüße, naïve café", "", "..."
        }) {
            java.util.List<String> seen = new java.util.ArrayList<>();
            LogAnalyzer.forEachIndexToken(text, (chars, length) -> seen.add(new String(chars, 0, length)));
            assertThat(seen).as(text).isEqualTo(LogAnalyzer.indexTokens(text));
        }
    }

    @Test
    void aTokenIsHeldExactlyWhenTheIndexTokensContainItAndTheAnalyzerIsReusableAfterAnEarlyStop() {
        // characters the analyzer lower-cases to ASCII ones: İ to i, the Kelvin sign to k
        assertThat(LogAnalyzer.hasIndexToken("user İD=7", "id")).isTrue();
        assertThat(LogAnalyzer.hasIndexToken("\u212Aey", "key")).isTrue();
        assertThat(LogAnalyzer.hasIndexToken("CO-9931 done", "co")).isTrue();
        assertThat(LogAnalyzer.hasIndexToken("cox", "co")).isFalse();
        java.util.Random random = new java.util.Random(20261207);
        String[] words = {"co-9931", "CO", "9931", "10.0.0.1", "api/v1/users", "x".repeat(300), "Grüße", "a_b", "=", " "
        };
        for (int round = 0; round < 2_000; round++) {
            StringBuilder text = new StringBuilder();
            for (int w = random.nextInt(6); w > 0; w--) {
                text.append(words[random.nextInt(words.length)]).append(random.nextBoolean() ? " " : ", ");
            }
            java.util.List<String> tokens = LogAnalyzer.indexTokens(text.toString());
            String probe = random.nextInt(3) > 0 && !tokens.isEmpty()
                    ? tokens.get(random.nextInt(tokens.size()))
                    : words[random.nextInt(words.length)].toLowerCase(java.util.Locale.ROOT);
            assertThat(LogAnalyzer.hasIndexToken(text.toString(), probe))
                    .as("%s in %s", probe, text)
                    .isEqualTo(tokens.contains(probe));
        }
    }

    @Test
    void aVeryLongRunIsCutIntoBoundedTokens() throws IOException {
        String blob = "x".repeat(600);
        assertThat(tokens(LogAnalyzer.forIndexing(), blob))
                .containsExactly("x".repeat(255), "x".repeat(255), "x".repeat(90));
    }

    @Test
    void nonAsciiLettersAreTokenChars() throws IOException {
        assertThat(tokens(LogAnalyzer.forQuery(), "Grüße, naïve café")).containsExactly("grüße", "naïve", "café");
    }

    static List<String> tokens(Analyzer a, String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = a.tokenStream(Fields.MESSAGE, text)) {
            CharTermAttribute t = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(t.toString());
            }
            ts.end();
        }
        return out;
    }
}
