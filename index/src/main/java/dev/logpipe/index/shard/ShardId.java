package dev.logpipe.index.shard;

import java.time.LocalDate;
import java.util.Objects;

/** One shard: a kind, a tenant and a UTC day. The tenant is validated ({@link TenantDirectory#problem}). */
public record ShardId(ShardKind kind, String tenant, LocalDate day) implements Comparable<ShardId> {
    public ShardId {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(day, "day");
        String problem = TenantDirectory.problem(tenant);
        if (problem != null) {
            throw new IllegalArgumentException("tenant_id " + problem);
        }
    }

    public static ShardId records(String tenant, LocalDate day) {
        return new ShardId(ShardKind.RECORDS, tenant, day);
    }

    public static ShardId deadLetters(String tenant, LocalDate day) {
        return new ShardId(ShardKind.DEAD_LETTERS, tenant, day);
    }

    @Override
    public int compareTo(ShardId o) {
        int c = kind.compareTo(o.kind);
        if (c == 0) {
            c = tenant.compareTo(o.tenant);
        }
        return c != 0 ? c : day.compareTo(o.day);
    }

    @Override
    public String toString() {
        return kind.directory() + "/" + tenant + "/" + day;
    }
}
