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
    /**
     * {@code ,"service":…,"instance_id":…}: the source's service (when it has one) and the host, written after the
     * record's trace and span ids, in {@code RecordCodec}'s order.
     */
    final byte[] serviceAndInstance;
    /** {@code ,"instance_id":…} alone, after the service of a record whose transform or line sets one. */
    final byte[] instance;
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
        this.instance = b.toByteArray();
        b.reset();
        if (service != null) {
            b.ascii(",\"service\":").string(service);
        }
        b.raw(instance);
        this.serviceAndInstance = b.toByteArray();
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
