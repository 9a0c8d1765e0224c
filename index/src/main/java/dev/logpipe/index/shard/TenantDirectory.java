package dev.logpipe.index.shard;

import dev.logpipe.record.RecordRules;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Tenant ids as directory names: an encoding that is injective (two ids never share a directory), case-safe (the
 * name holds only {@code a-z 0-9 - _}, so ids that differ only in case stay apart on case-insensitive file systems)
 * and traversal-free ({@code .}, {@code /} and {@code \} are always escaped).
 *
 * <p>{@code a-z}, {@code 0-9} and {@code -} stand for themselves; every other character, {@code _} included, becomes
 * {@code _} and two lower-case hex digits per UTF-8 byte: {@code acme} stays {@code acme}, {@code Acme} is
 * {@code _41cme}, {@code ../x} is {@code _2e_2e_2fx}.
 */
public final class TenantDirectory {
    /** Longest tenant id accepted, in characters. */
    public static final int MAX_TENANT_CHARS = RecordRules.MAX_TENANT_CHARS;
    /** Longest directory name produced (file systems allow 255 bytes). */
    public static final int MAX_NAME_CHARS = RecordRules.MAX_TENANT_ENCODED_CHARS;

    private TenantDirectory() {}

    /**
     * The directory name of a tenant id.
     *
     * @throws IllegalArgumentException the id is empty, longer than {@link #MAX_TENANT_CHARS}, holds a control
     *                                  character, or encodes to more than {@link #MAX_NAME_CHARS} characters
     */
    public static String encode(String tenant) {
        String problem = problem(tenant);
        if (problem != null) {
            throw new IllegalArgumentException("tenant_id " + problem);
        }
        StringBuilder b = new StringBuilder(tenant.length() + 8);
        for (byte x : tenant.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
                b.append((char) c);
            } else {
                b.append('_').append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
            }
        }
        return b.toString();
    }

    /** Why a tenant id cannot be stored (a dead-letter reason), or null when it can: {@link RecordRules#tenantProblem}. */
    public static String problem(String tenant) {
        return RecordRules.tenantProblem(tenant);
    }

    /** The tenant id of a directory name, or empty when the name is not one {@link #encode} produces. */
    public static Optional<String> decode(String name) {
        byte[] out = new byte[name.length()];
        int n = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') {
                out[n++] = (byte) c;
            } else if (c == '_'
                    && i + 2 < name.length()
                    && hex(name.charAt(i + 1)) >= 0
                    && hex(name.charAt(i + 2)) >= 0) {
                int v = hex(name.charAt(i + 1)) << 4 | hex(name.charAt(i + 2));
                if ((v >= 'a' && v <= 'z') || (v >= '0' && v <= '9') || v == '-') {
                    return Optional.empty(); // not canonical: encode would not escape it
                }
                out[n++] = (byte) v;
                i += 2;
            } else {
                return Optional.empty();
            }
        }
        String tenant = new String(out, 0, n, StandardCharsets.UTF_8);
        try {
            return encode(tenant).equals(name) ? Optional.of(tenant) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    }
}
