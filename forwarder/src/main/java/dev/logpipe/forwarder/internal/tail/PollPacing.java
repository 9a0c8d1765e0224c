package dev.logpipe.forwarder.internal.tail;

/**
 * How often the tail loop looks at one file, and whether reading it fails: a file that had nothing new for
 * {@link #QUIET_AFTER} polls is looked at only every {@link #QUIET_AFTER}-th round, so idle files cost a quarter of
 * the system calls; a failure streak is logged once. Confined to the tail thread.
 */
final class PollPacing {
    static final int QUIET_AFTER = 4;

    private int quietPolls;
    private boolean readFailing;

    /** Whether to look at the file in round {@code round}. */
    boolean dueForPoll(long round) {
        return quietPolls < QUIET_AFTER || round % QUIET_AFTER == 0;
    }

    void polled(boolean gotData) {
        quietPolls = gotData ? 0 : Math.min(quietPolls + 1, QUIET_AFTER);
    }

    /** Notes a failed read; true the first time, so the caller logs once per failure streak. */
    boolean readFailed() {
        boolean first = !readFailing;
        readFailing = true;
        return first;
    }

    /** Notes a successful read; true if it ends a failure streak. */
    boolean readRecovered() {
        boolean was = readFailing;
        readFailing = false;
        return was;
    }
}
