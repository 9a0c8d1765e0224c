package dev.logpipe.collector.config;

import dev.logpipe.config.ConfigException;
import dev.logpipe.config.ConfigNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a {@code tls} node (the HTTP listener's and each syslog TCP listener's): key store, optional trust store,
 * their passwords in clear or from an environment variable, and the client-certificate policy. Every error names
 * the key path under the node it was given.
 */
public final class TlsConfigReader {
    private TlsConfigReader() {}

    /**
     * @param t    the {@code tls} node; its {@code keystore} is required
     * @param base the directory relative paths are resolved against (the config file's)
     */
    public static CollectorConfig.Tls read(ConfigNode t, Path base) throws ConfigException {
        Path keystore = t.path("keystore", base, null);
        if (keystore == null) {
            throw new ConfigException(t.keyPath("keystore") + ": is required");
        }
        String keystorePassword = secret(t, "keystore_password");
        Path truststore = t.path("truststore", base, null);
        String truststorePassword = truststore == null ? null : secret(t, "truststore_password");
        CollectorConfig.ClientAuth auth = t.choice(
                "client_auth",
                CollectorConfig.ClientAuth.class,
                truststore == null ? CollectorConfig.ClientAuth.NONE : CollectorConfig.ClientAuth.WANT);
        t.rejectUnknownKeys();
        requireReadable(t, "keystore", keystore);
        if (truststore != null) {
            requireReadable(t, "truststore", truststore);
        }
        if (auth != CollectorConfig.ClientAuth.NONE && truststore == null) {
            throw new ConfigException(t.keyPath("client_auth") + ": "
                    + auth.name().toLowerCase(Locale.ROOT) + " needs " + t.keyPath("truststore"));
        }
        return new CollectorConfig.Tls(keystore, keystorePassword, truststore, truststorePassword, auth);
    }

    private static void requireReadable(ConfigNode t, String key, Path file) throws ConfigException {
        if (!Files.isReadable(file)) {
            throw new ConfigException(t.keyPath(key) + ": " + file + " is not a readable file");
        }
    }

    /** {@code key} in clear, or {@code key_env}: the name of an environment variable that holds it. */
    private static String secret(ConfigNode t, String key) throws ConfigException {
        String value = t.string(key, null);
        String env = t.string(key + "_env", null);
        if (value != null && env != null) {
            throw new ConfigException(t.keyPath(key + "_env") + ": set either " + t.keyPath(key) + " or "
                    + t.keyPath(key + "_env") + ", not both");
        }
        if (env != null) {
            value = System.getenv(env);
            if (value == null) {
                throw new ConfigException(t.keyPath(key + "_env") + ": environment variable " + env + " is not set");
            }
        }
        if (value == null) {
            throw new ConfigException(t.keyPath(key) + ": is required (or " + t.keyPath(key + "_env") + ")");
        }
        return value;
    }
}
