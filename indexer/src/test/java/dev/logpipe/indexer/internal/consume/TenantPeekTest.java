package dev.logpipe.indexer.internal.consume;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The lenient read of a line's {@code tenant_id} that attributes the dead letter of a line that is not a record. */
class TenantPeekTest {
    private static String peek(String line) {
        byte[] b = line.getBytes(StandardCharsets.UTF_8);
        return PollBatch.peekTenant(b, 0, b.length);
    }

    @Test
    void aTopLevelStringTenantIsFoundUpToTheFirstError() {
        assertThat(peek("{\"message\":\"x\",\"tenant_id\":\"acme\",\"event_time\":"))
                .isEqualTo("acme");
        assertThat(peek("{\"fields\":{\"tenant_id\":\"nested\"},\"tenant_id\":\"top\"}"))
                .isEqualTo("top");
    }

    @Test
    void aNestedANonStringOrALateTenantIsNotTaken() {
        assertThat(peek("{\"fields\":{\"tenant_id\":\"nested\"},\"tenant_id\":7}"))
                .isNull();
        assertThat(peek("{\"message\":\"x\" garbage, \"tenant_id\":\"late\"}")).isNull();
        assertThat(peek("\u0000{{{")).isNull();
        assertThat(peek("[\"tenant_id\",\"acme\"]")).isNull();
    }
}
