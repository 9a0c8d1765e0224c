package dev.logpipe.role;

/**
 * A role's stop: its parts closed one after another in the order given (intake first, state last), each one even
 * when an earlier one failed, so a failing HTTP port never leaves a shard or an audit log open. The first failure is
 * thrown once every part was closed, the later ones attached to it as suppressed; an {@link Error} is caught the same
 * way (the engine and the audit log still close after a port that failed with one) and rethrown as itself.
 */
public final class CloseAll {
    private CloseAll() {}

    /** Closes every non-null part in order; see the class doc for failures. */
    public static void inOrder(AutoCloseable... parts) throws Exception {
        Throwable first = null;
        for (AutoCloseable part : parts) {
            if (part == null) {
                continue;
            }
            try {
                part.close();
            } catch (Throwable e) { // an Error too: the later parts still close
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof Exception e) {
            throw e;
        }
        if (first instanceof Error e) {
            throw e;
        }
        if (first != null) {
            throw new IllegalStateException("a part failed to close", first);
        }
    }
}
