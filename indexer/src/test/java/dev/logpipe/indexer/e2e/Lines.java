package dev.logpipe.indexer.e2e;

import java.time.Instant;

/** Records-topic lines as a collector writes them (tenant and observed_time set). */
final class Lines {
    private Lines() {}

    static String record(String tenant, String id, String message, Instant time) {
        return "{\"schema_version\":3,\"record_id\":\"" + id + "\",\"event_time\":\"" + time + "\",\"observed_time\":\""
                + time + "\",\"tenant_id\":\"" + tenant + "\",\"service\":\"billing\",\"level\":\"INFO\",\"message\":\""
                + message + "\",\"fields\":{\"seq\":1}}\n";
    }
}
