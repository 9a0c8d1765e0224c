package dev.logpipe.archive.format;

import dev.logpipe.index.store.read.CorruptShardException;

/** An archive whose bytes are not what it says they are (a checksum, a length, a magic number): names the archive. */
public final class CorruptArchiveException extends CorruptShardException {
    private final String archive;

    public CorruptArchiveException(String archive, String problem) {
        super("archive " + archive + " is corrupt: " + problem);
        this.archive = archive;
    }

    public CorruptArchiveException(String archive, String problem, Throwable cause) {
        super("archive " + archive + " is corrupt: " + problem, cause);
        this.archive = archive;
    }

    /** The archive's name (its object key). */
    public String archive() {
        return archive;
    }
}
