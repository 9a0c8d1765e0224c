package dev.logpipe.config;

/** An invalid configuration: the message starts with the key path and says what is wrong and what was found. */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
