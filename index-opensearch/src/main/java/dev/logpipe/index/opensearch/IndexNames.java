package dev.logpipe.index.opensearch;

import dev.logpipe.index.shard.ShardId;
import dev.logpipe.index.shard.ShardKind;
import dev.logpipe.index.shard.TenantDirectory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The OpenSearch index of a shard: {@code <prefix>-records-<tenant>-<yyyy.MM.dd>} and
 * {@code <prefix>-deadletters-<tenant>-<yyyy.MM.dd>}, the tenant as its validated directory name ({@link
 * TenantDirectory}: {@code a-z 0-9 - _} only, injective). OpenSearch allows 255 bytes: a tenant whose directory name
 * would not fit is cut and followed by {@code _h} and 16 hex digits of its SHA-256 ({@code _h} is no escape
 * {@link TenantDirectory} writes, so such a name never meets an uncut one). The kind stands right after the prefix and
 * the day is fixed-length at the end, so no tenant's name can be read as another kind or day. Every index also names
 * its shard in its mapping's {@code _meta} ({@link #META_KIND}, {@link #META_TENANT}, {@link #META_DAY}), which is how
 * a cut name is read back.
 */
final class IndexNames {
    static final int MAX_INDEX_BYTES = 255;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("uuuu.MM.dd");
    private static final int DAY_CHARS = 10;
    private static final String RECORDS = "records";
    private static final String DEAD_LETTERS = "deadletters";

    static final String META_KIND = "logpipe_kind";
    static final String META_TENANT = "logpipe_tenant";
    static final String META_DAY = "logpipe_day";

    private final String prefix;

    IndexNames(String prefix) {
        this.prefix = prefix;
    }

    String of(ShardId shard) {
        String head = prefix + "-" + kind(shard.kind()) + "-";
        String tenant = TenantDirectory.encode(shard.tenant());
        int room = MAX_INDEX_BYTES - head.length() - 1 - DAY_CHARS;
        if (tenant.length() > room) {
            tenant = tenant.substring(0, room - 18) + "_h" + hash(shard.tenant());
        }
        return head + tenant + "-" + DAY.format(shard.day());
    }

    /** The pattern of every index of a kind. */
    String pattern(ShardKind kind) {
        return prefix + "-" + kind(kind) + "-*";
    }

    /** Whether the name is one of this layout with a cut tenant: its shard is in its {@code _meta}. */
    boolean isCut(String index) {
        return index.contains("_h") && index.length() == MAX_INDEX_BYTES;
    }

    /** The shard of an index name of this layout, or empty (another prefix or kind, a cut tenant, not a day). */
    Optional<ShardId> parse(ShardKind kind, String index) {
        String head = prefix + "-" + kind(kind) + "-";
        if (!index.startsWith(head) || index.length() < head.length() + 2 + DAY_CHARS) {
            return Optional.empty();
        }
        String rest = index.substring(head.length());
        String tenantName = rest.substring(0, rest.length() - DAY_CHARS - 1);
        if (rest.charAt(rest.length() - DAY_CHARS - 1) != '-') {
            return Optional.empty();
        }
        LocalDate day;
        try {
            day = LocalDate.parse(rest.substring(rest.length() - DAY_CHARS), DAY);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
        return TenantDirectory.decode(tenantName).map(t -> new ShardId(kind, t, day));
    }

    private static String kind(ShardKind kind) {
        return kind == ShardKind.RECORDS ? RECORDS : DEAD_LETTERS;
    }

    private static String hash(String tenant) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(tenant.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("SHA-256 is in every JDK", e);
        }
    }
}
