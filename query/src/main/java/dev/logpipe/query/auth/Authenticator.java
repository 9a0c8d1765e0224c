package dev.logpipe.query.auth;

import java.util.Optional;

/**
 * Resolves the tenant scope of a request from the API key it presents (invariant I4, docs/architecture.md: the scope
 * comes from the credential only). The key is read from the request by {@link dev.logpipe.auth.PresentedKey}'s rule,
 * the one every logpipe API applies. Thread-safe.
 */
public interface Authenticator {
    /** The credential of a presented key, or empty when the key is unknown. */
    Optional<Credential> authenticate(String key);
}
