package dev.logpipe.index.opensearch;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads an {@code opensearch} section (docs/deployment.md#opensearch) for the indexer and the query service alike; every
 * error names its key path. A password or API key is given inline or, better, as the name of an environment variable
 * ({@code password_env}, {@code api_key_env}); an environment variable that is not set fails startup naming it.
 */
public final class OpenSearchSettingsLoader {
    private OpenSearchSettingsLoader() {}

    /**
     * A role's {@code store} key: {@code lucene} (the default; empty) or {@code opensearch} with its {@code opensearch}
     * section (docs/deployment.md#opensearch), which is refused with any other store.
     */
    public static Optional<OpenSearchSettings> store(ConfigNode root) throws ConfigException {
        String store = root.string("store", "lucene");
        switch (store) {
            case "lucene" -> {
                if (root.has("opensearch")) {
                    throw new ConfigException("opensearch: only with store: opensearch (store is lucene)");
                }
                return Optional.empty();
            }
            case "opensearch" -> {
                if (!root.has("opensearch")) {
                    throw new ConfigException("opensearch: required with store: opensearch (its hosts at least)");
                }
                return Optional.of(OpenSearchSettingsLoader.read(root.child("opensearch")));
            }
            default -> throw new ConfigException("store: lucene or opensearch, was \"" + store + "\"");
        }
    }

    public static OpenSearchSettings read(ConfigNode n) throws ConfigException {
        return read(n, System::getenv);
    }

    /** As {@link #read(ConfigNode)}, with the environment given (for tests). */
    public static OpenSearchSettings read(ConfigNode n, java.util.function.UnaryOperator<String> env)
            throws ConfigException {
        List<URI> hosts = new ArrayList<>();
        List<String> given = n.strings("hosts");
        if (given.isEmpty()) {
            throw new ConfigException(n.keyPath("hosts") + ": at least one http:// or https:// address is required");
        }
        for (int i = 0; i < given.size(); i++) {
            try {
                URI u = new URI(given.get(i));
                if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                    throw new URISyntaxException(given.get(i), "not an http:// or https:// address");
                }
                hosts.add(u);
            } catch (URISyntaxException e) {
                throw new ConfigException(n.keyPath("hosts") + "[" + i + "]: " + e.getMessage());
            }
        }
        OpenSearchSettings.Credential credential = credential(n, env);
        Optional<Path> ca = Optional.empty();
        if (n.has("ca_file")) {
            Path p = Path.of(n.requiredString("ca_file"));
            if (!Files.isReadable(p)) {
                throw new ConfigException(n.keyPath("ca_file") + ": cannot read " + p);
            }
            ca = Optional.of(p);
        }
        try {
            OpenSearchSettings s = new OpenSearchSettings(
                    hosts,
                    credential,
                    ca,
                    n.string("index_prefix", "logpipe"),
                    (int) n.integer("shards", 1, 1, 1024),
                    (int) n.integer("replicas", 1, 0, 16),
                    n.duration("refresh_interval", Duration.ofSeconds(1), Duration.ofMillis(1)),
                    n.bytes("bulk_bytes", 5L * 1024 * 1024, 64 * 1024, 100L * 1024 * 1024),
                    n.duration("request_timeout", Duration.ofSeconds(30), Duration.ofMillis(1)),
                    (int) n.integer("bulk_concurrency", OpenSearchSettings.DEFAULT_BULK_CONCURRENCY, 1, 16));
            n.rejectUnknownKeys();
            return s;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(n.keyPath("") + e.getMessage());
        }
    }

    private static OpenSearchSettings.Credential credential(ConfigNode n, java.util.function.UnaryOperator<String> env)
            throws ConfigException {
        String user = n.string("username", null);
        String password = n.secret("password", env);
        String apiKey = n.secret("api_key", env);
        if (apiKey != null && (user != null || password != null)) {
            throw new ConfigException(
                    n.keyPath("api_key") + ": give either api_key or username and password, not both");
        }
        if (apiKey != null) {
            return new OpenSearchSettings.Credential.ApiKey(apiKey);
        }
        if ((user == null) != (password == null)) {
            throw new ConfigException(
                    n.keyPath(user == null ? "username" : "password") + ": username and password go together");
        }
        return user == null
                ? OpenSearchSettings.Credential.NONE
                : new OpenSearchSettings.Credential.Basic(user, password);
    }
}
