package dev.logpipe.forwarder.internal.sink;

import dev.logpipe.record.JsonBuffer;
import dev.logpipe.record.RecordId;

/**
 * The file a {@link Batch} comes from: its path, host, record-id scope, service and identity, with the JSON
 * fragments every record of the file shares precomputed once for the encoders. Immutable.
 */
public final class SourceFile {
    private final String path;
    private final RecordId.Scope ids;
    private final String service;
    /** From after the record id (and event time) to the message key, with the source's service. */
    final byte[] afterId;
    /** The same without a service, for records whose transform sets one. */
    final byte[] afterIdNoService;
    /** From the end of the message to the offset value. */
    final byte[] afterMessage;

    private final String host;
    private final String identity;

    /** @param identity the file's identity as text, {@code device:inode:fingerprint} */
    public SourceFile(String path, String host, RecordId.Scope ids, String service, String identity) {
        this(path, host, ids, service, identity, null);
    }

    /**
     * @param fileFields pre-encoded {@code ,"name":value} pairs every record of the file carries (Kubernetes
     *                   names), or null
     */
    public SourceFile(
            String path, String host, RecordId.Scope ids, String service, String identity, byte[] fileFields) {
        this.path = path;
        this.ids = ids;
        this.service = service;
        this.host = host;
        this.identity = identity;
        JsonBuffer b = new JsonBuffer(64);
        b.ascii(",\"instance_id\":").string(host);
        this.afterIdNoService = b.toByteArray();
        if (service != null) {
            b.ascii(",\"service\":").string(service);
        }
        this.afterId = b.toByteArray();
        b.reset();
        b.ascii(",\"fields\":{\"log.file.path\":").string(path);
        if (fileFields != null) {
            b.raw(fileFields);
        }
        b.ascii(",\"log.offset\":");
        this.afterMessage = b.toByteArray();
    }

    public String path() {
        return path;
    }

    public String host() {
        return host;
    }

    /** {@code device:inode:fingerprint}: stays the same across renames of the file. */
    public String identity() {
        return identity;
    }

    public RecordId.Scope ids() {
        return ids;
    }

    public String service() {
        return service;
    }
}
