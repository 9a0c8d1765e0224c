package dev.logpipe.archive.format;

import java.io.IOException;

/** Ranged reads of one immutable object (a local file, an S3 object): what {@link ArchiveReader} reads through. */
public interface RangeSource {
    /** The object's length in bytes. */
    long size() throws IOException;

    /** Exactly {@code length} bytes at {@code offset}; an object shorter than that is an {@link IOException}. */
    byte[] read(long offset, int length) throws IOException;
}
