package dev.logpipe.collector.auth;

import dev.logpipe.auth.AuthFailures;
import dev.logpipe.auth.Credentials;
import dev.logpipe.auth.PresentedKey;
import dev.logpipe.collector.config.CollectorConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Maps a credential to its tenant: a client certificate's subject (mTLS; invariant I4, docs/architecture.md) or an API
 * key, presented as every logpipe API reads one ({@link PresentedKey}: one {@code Authorization} header, Bearer or
 * Basic). Only SHA-256 hashes are held (the configuration never contains a key), so a presented key is hashed and
 * looked up; the key itself is never logged or kept. Failed authentications are counted per client address
 * ({@link AuthFailures}).
 */
public final class ApiKeys {
    private final Map<String, CollectorConfig.Tenant> byHash;
    private final Map<String, CollectorConfig.Tenant> bySubject = new HashMap<>();
    private final AuthFailures failures;

    public ApiKeys(List<CollectorConfig.Tenant> tenants) {
        this(tenants, new HashMap<>());
    }

    /** As below, with failed authentications limited by the default policy. */
    public ApiKeys(List<CollectorConfig.Tenant> tenants, Map<String, CollectorConfig.Tenant> liveByHash) {
        this(tenants, liveByHash, new AuthFailures(AuthFailures.Policy.DEFAULT, System::nanoTime));
    }

    /**
     * Keys that may change while the collector runs: {@code liveByHash} maps the SHA-256 (hex) of a key to its
     * tenant and is read on every request (a thread-safe map its owner updates, e.g. {@link KeyLookup}); the
     * configured {@code tenants}' keys are put into it (none with a read-only {@link KeyLookup}). {@code failures}
     * may be shared with other APIs on the same port (the standalone's).
     */
    public ApiKeys(
            List<CollectorConfig.Tenant> tenants,
            Map<String, CollectorConfig.Tenant> liveByHash,
            AuthFailures failures) {
        this.byHash = liveByHash;
        this.failures = failures;
        for (CollectorConfig.Tenant t : tenants) {
            for (String h : t.apiKeySha256()) {
                byHash.put(h, t);
            }
            for (String s : t.certSubjects()) {
                bySubject.put(s, t);
            }
        }
    }

    /**
     * Who sent a request: its tenant, or the refusal (401 for no, an unknown or ambiguous credential; 429 with a
     * Retry-After once the client address failed too often).
     */
    public record Outcome(CollectorConfig.Tenant tenant, int status, String problem, Duration retryAfter) {
        static Outcome of(CollectorConfig.Tenant t) {
            return new Outcome(t, 200, null, Duration.ZERO);
        }
    }

    /**
     * Authenticates a request from its {@code Authorization} header values, the verified client certificate's subject
     * (canonical RFC 2253 form, or null) and the client address. A certificate that maps to a tenant is enough; with
     * a key beside it, both must name the same tenant (else the credentials are ambiguous).
     */
    public Outcome authenticate(List<String> authorizations, String certificateSubject, String remoteAddress) {
        CollectorConfig.Tenant byCert = certificateSubject == null ? null : bySubject.get(certificateSubject);
        if (byCert != null && PresentedKey.read(authorizations).status() == PresentedKey.Status.NONE) {
            return Outcome.of(byCert);
        }
        // beside a mapped certificate, a key must name the certificate's tenant: any other key is refused
        Function<String, Optional<CollectorConfig.Tenant>> byKey = byCert == null
                ? key -> Optional.ofNullable(lookup(key))
                : key -> Optional.ofNullable(lookup(key)).filter(t -> t == byCert);
        String unknown = byCert != null
                ? "ambiguous credentials: the client certificate and the API key do not name the same tenant; send one"
                : certificateSubject == null
                        ? "a valid API key is required: Authorization: Bearer <key> (or Basic with the key as the password)"
                        : "client certificate " + certificateSubject + " is not mapped to a tenant "
                                + "(cert_subjects), and no valid API key was given";
        try {
            return Outcome.of(Credentials.check(failures, authorizations, remoteAddress, byKey, unknown));
        } catch (Credentials.Refused r) {
            return new Outcome(null, r.status(), r.getMessage(), r.retryAfter());
        }
    }

    /** The tenant of a verified client certificate's subject, or null (syslog over TLS: no header, no limit). */
    public CollectorConfig.Tenant authenticate(String authorization, String certificateSubject) {
        if (certificateSubject != null) {
            CollectorConfig.Tenant t = bySubject.get(certificateSubject);
            if (t != null) {
                return t;
            }
        }
        return authenticate(authorization);
    }

    /**
     * The tenant of one {@code Authorization} header value, or null when it is absent, malformed or unknown:
     * {@code Bearer <key>}, or {@code Basic base64(user:key)} with the key as the password and any user name (for
     * shippers that only do basic auth: Filebeat, Logstash, Fluent Bit's es output, Vector, Promtail).
     */
    public CollectorConfig.Tenant authenticate(String authorization) {
        PresentedKey p = PresentedKey.read(authorization == null ? List.of() : List.of(authorization));
        return p.status() == PresentedKey.Status.KEY ? lookup(p.key()) : null;
    }

    private CollectorConfig.Tenant lookup(String key) {
        return byHash.get(sha256(key));
    }

    /** The failed-authentication limit these keys count into. */
    public AuthFailures failures() {
        return failures;
    }

    public static String sha256(String key) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
