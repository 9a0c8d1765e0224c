package dev.logpipe.query.auth;

import java.util.Objects;

/** Who asks: the tenant resolved from the credential, and a credential id fit for logs (never the key). */
public record Credential(String tenant, String credentialId) {
    public Credential {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(credentialId, "credentialId");
    }
}
