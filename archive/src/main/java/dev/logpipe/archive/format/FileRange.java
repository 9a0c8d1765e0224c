package dev.logpipe.archive.format;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Ranged reads of a local file, each opening it anew (so no handle outlives a read). */
public record FileRange(Path file) implements RangeSource {
    @Override
    public long size() throws IOException {
        return java.nio.file.Files.size(file);
    }

    @Override
    public byte[] read(long offset, int length) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(length);
            while (b.hasRemaining()) {
                if (ch.read(b, offset + b.position()) < 0) {
                    throw new EOFException(file + " ends before " + (offset + length));
                }
            }
            return b.array();
        }
    }
}
