package dev.logpipe.query.auth;

import java.util.Optional;

/**
 * Resolves the tenant scope of a request from its {@code Authorization} header value (invariant I4, docs/architecture.md: the scope
 * comes from the credential only). Thread-safe.
 */
public interface Authenticator {
    /** The caller's credential, or empty when the header is absent, malformed or unknown. */
    Optional<Credential> authenticate(String authorization);
}
