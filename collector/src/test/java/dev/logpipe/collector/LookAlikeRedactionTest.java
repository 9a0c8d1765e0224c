package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.collector.LookAlikeCorpus.LookAlike;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 24, item 4, through a real collector into a real broker: every value of {@link LookAlikeCorpus} reaches the
 * records topic exactly as sent (read back from the topic and compared), the answer reports no redaction for them,
 * and real card numbers are still redacted and reported in the answer by rule.
 */
@Integration
class LookAlikeRedactionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final CollectorExtension COLLECTOR = new CollectorExtension("lookalike");

    private static String line(int i, LookAlike a) {
        String marker = "la-" + i;
        return switch (a.place()) {
            case TRACE_ID -> "{\"message\":\"" + marker + "\",\"trace_id\":\"" + a.value() + "\"}";
            case SPAN_ID -> "{\"message\":\"" + marker + "\",\"span_id\":\"" + a.value() + "\"}";
            case RECORD_ID -> "{\"message\":\"" + marker + "\",\"record_id\":\"" + a.value() + "\"}";
            case STRING_FIELD ->
                "{\"message\":\"" + marker + "\",\"fields\":{\"" + a.field() + "\":\"" + a.value() + "\"}}";
            case NUMBER_FIELD ->
                "{\"message\":\"" + marker + "\",\"fields\":{\"" + a.field() + "\":" + a.value() + "}}";
            case MESSAGE -> JSON.createObjectNode().put("message", a.value()).toString();
        };
    }

    /** The value as it sits in the published record (a number as its JSON text), or null when it is not there. */
    private static String published(List<JsonNode> records, int i, LookAlike a) {
        if (a.place() == LookAlikeCorpus.Place.MESSAGE) {
            return records.stream()
                    .map(r -> r.get("message").asText())
                    .filter(m -> m.equals(a.value()))
                    .findFirst()
                    .orElse(null);
        }
        JsonNode r = records.stream()
                .filter(n -> n.get("message").asText().equals("la-" + i))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no record la-" + i));
        JsonNode v = switch (a.place()) {
            case TRACE_ID -> r.get("trace_id");
            case SPAN_ID -> r.get("span_id");
            case RECORD_ID -> r.get("record_id");
            default -> r.path("fields").get(a.field());
        };
        if (v == null) {
            return null;
        }
        return a.place() == LookAlikeCorpus.Place.NUMBER_FIELD
                ? (v.isNumber() ? v.toString() : "not a number: " + v)
                : v.asText();
    }

    @Test
    void noLookAlikeIsChangedOnItsWayToKafka() throws Exception {
        List<LookAlike> corpus = LookAlikeCorpus.all();
        assertThat(corpus).hasSizeGreaterThanOrEqualTo(30);
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < corpus.size(); i++) {
            body.append(line(i, corpus.get(i))).append('\n');
        }
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("accepted").asInt()).as(r.body()).isEqualTo(corpus.size());

        List<JsonNode> records = new ArrayList<>();
        for (String l : TopicContents.recordLines(
                TopicContents.readAll(COLLECTOR.bootstrapServers(), "lookalike.records", Duration.ofSeconds(20)))) {
            records.add(JSON.readTree(l));
        }
        List<String> changed = new ArrayList<>();
        for (int i = 0; i < corpus.size(); i++) {
            LookAlike a = corpus.get(i);
            String out = published(records, i, a);
            if (!a.value().equals(out)) {
                changed.add(a.name() + ": " + a.value() + " -> " + out);
            }
        }
        assertThat(changed).as("look-alikes changed on the way to Kafka").isEmpty();
        assertThat(answer.get("redacted").size()).as(r.body()).isZero();
        assertThat(r.headers().firstValue("Logpipe-Redacted")).isEmpty();
    }

    @Test
    void realCardNumbersAreStillRedactedAndTheAnswerCountsThemByRule() throws Exception {
        String body = """
                {"message":"lc card 4111 1111 1111 1111 charged"}
                {"message":"lc amex 3782 822463 10005","fields":{"trace_id_hint":"none"}}
                {"message":"lc number","fields":{"card":5105105105105100,"note":"paid with 6011-1111-1111-1117"}}
                {"message":"lc pair password=hunter2 ok"}
                """;
        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(r.body());
        assertThat(answer.get("redacted").get("card_number").asInt())
                .as(r.body())
                .isEqualTo(4);
        assertThat(answer.get("redacted").get("secret_pair").asInt()).isEqualTo(1);
        assertThat(r.headers().firstValue("Logpipe-Redacted")).hasValue("card_number=4, secret_pair=1");
        String topic = String.join(
                "\n",
                TopicContents.recordLines(TopicContents.readAll(
                        COLLECTOR.bootstrapServers(), "lookalike.records", Duration.ofSeconds(20))));
        assertThat(topic)
                .doesNotContain("4111 1111 1111 1111")
                .doesNotContain("3782 822463 10005")
                .doesNotContain("5105105105105100")
                .doesNotContain("6011-1111-1111-1117")
                .doesNotContain("hunter2");
    }
}
