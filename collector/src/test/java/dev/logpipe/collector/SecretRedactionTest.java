package dev.logpipe.collector;

import static dev.logpipe.collector.CollectorFixture.ACME_KEY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.logpipe.broker.testing.TopicContents;
import dev.logpipe.testkit.Integration;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every shape of {@link SecretCorpus}, sent as a real client would (in the message, as field values under neutral,
 * generic and secret names, as field names, as record ids, in lines that are dead-lettered, past the dead-letter cut), is
 * found in neither the records topic nor the dead-letter topic afterwards.
 */
@Integration
class SecretRedactionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final CollectorExtension COLLECTOR = new CollectorExtension("secrets");

    private static String line(ObjectNode n) {
        return n.toString() + "\n";
    }

    @Test
    void noSecretShapeReachesEitherTopicInRecordsOrDeadLetters() throws Exception {
        List<SecretCorpus.Shape> text = SecretCorpus.inText();
        assertThat(text.size() + SecretCorpus.secretFieldNames().size()).isGreaterThanOrEqualTo(60);
        StringBuilder body = new StringBuilder();
        List<String> secrets = new ArrayList<>();
        int expectedRecords = 0;
        for (SecretCorpus.Shape s : text) {
            secrets.add(s.secret());
            ObjectNode inMessage = JSON.createObjectNode().put("message", "sr " + s.name() + ": " + s.text());
            body.append(line(inMessage));
            ObjectNode inField = JSON.createObjectNode().put("message", "sr field " + s.name());
            inField.putObject("fields").put("detail", s.text());
            body.append(line(inField));
            expectedRecords += 2;
            // A line that is not JSON is dead-lettered with its raw text, which must be redacted too.
            body.append("{\"message\":\"sr broken ")
                    .append(s.text().replace("\n", "\\n").replace("\"", "\\\""))
                    .append("\"\n");
        }
        for (SecretCorpus.Shape s : SecretCorpus.secretFieldNames()) {
            secrets.add(s.secret());
            ObjectNode n = JSON.createObjectNode().put("message", "sr named " + s.name());
            n.putObject("fields").put(s.text(), s.secret());
            body.append(line(n));
            expectedRecords++;
        }
        for (SecretCorpus.Shape s : SecretCorpus.cardsUnderGenericNames()) {
            secrets.add(s.secret());
            ObjectNode asText = JSON.createObjectNode().put("message", "sr generic " + s.name());
            asText.putObject("fields").put(s.text(), s.secret());
            ObjectNode asNumber = JSON.createObjectNode().put("message", "sr generic number " + s.name());
            asNumber.putObject("fields").put(s.text(), Long.parseLong(s.secret()));
            body.append(line(asText)).append(line(asNumber));
            expectedRecords += 2;
        }
        // Nested headers, a card number as a JSON number, secrets as field names and as record ids.
        secrets.add("nestedcookie0001");
        body.append("{\"message\":\"sr nested\",\"fields\":{\"headers\":{\"Cookie\":\"nestedcookie0001\"}}}\n");
        secrets.add("4111111111111111");
        body.append("{\"message\":\"sr number\",\"fields\":{\"card\":4111111111111111}}\n");
        secrets.add("5105105105105100");
        body.append("{\"message\":\"sr double\",\"fields\":{\"card\":5105105105105100.0}}\n");
        String ghpName = "ghp_" + "N4m3dS3cr3tN4m3dS3cr3tN4m3dS3cr3tN4m3";
        secrets.add(ghpName);
        body.append("{\"message\":\"sr name\",\"fields\":{\"").append(ghpName).append("\":\"x\"}}\n");
        secrets.add("AKIAFIELDNAME0000001");
        body.append("{\"message\":\"sr name2\",\"fields\":{\"AKIAFIELDNAME0000001\":true}}\n");
        String ghpId = "ghp_" + "R3c0rd1dR3c0rd1dR3c0rd1dR3c0rd1dR3c0";
        secrets.add(ghpId);
        body.append("{\"message\":\"sr id\",\"record_id\":\"").append(ghpId).append("\"}\n");
        secrets.add("AKIARECORDID00000001");
        body.append("{\"message\":\"sr id2\",\"record_id\":\"AKIARECORDID00000001\"}\n");
        expectedRecords += 7;
        // A dead-lettered line longer than the kept 64 KiB, with a secret across the cut.
        secrets.add("straddlesecret0001");
        body.append("{not json ").append("a".repeat(64 * 1024 - 20)).append(" password=straddlesecret0001 end\n");

        HttpResponse<String> r = COLLECTOR.collector().post(ACME_KEY, body.toString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).get("accepted").asInt()).isEqualTo(expectedRecords);

        List<String> records = TopicContents.recordLines(
                TopicContents.readAll(COLLECTOR.bootstrapServers(), "secrets.records", Duration.ofSeconds(20)));
        List<String> dead = TopicContents.recordLines(
                TopicContents.readAll(COLLECTOR.bootstrapServers(), "secrets.dead-letter", Duration.ofSeconds(20)));
        assertThat(records).hasSize(expectedRecords);
        assertThat(dead).hasSize(text.size() + 1);
        for (String secret : secrets) {
            assertThat(records).as("records topic holds %s", secret).noneMatch(l -> l.contains(secret));
            assertThat(dead).as("dead-letter topic holds %s", secret).noneMatch(l -> l.contains(secret));
        }
        assertThat(dead).noneMatch(l -> l.contains("straddlesec"));
        assertThat(records).anyMatch(l -> l.contains("\"record_id\":\"redacted-"));
    }
}
