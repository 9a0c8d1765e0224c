package dev.logpipe.forwarder;

/** The forwarder's state cannot be used (corrupt watermark file, or another process holds it); startup stops. */
public final class StateException extends Exception {
    private static final long serialVersionUID = 1L;

    public StateException(String message) {
        super(message);
    }

    public StateException(String message, Throwable cause) {
        super(message, cause);
    }
}
