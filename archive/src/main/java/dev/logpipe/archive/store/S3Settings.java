package dev.logpipe.archive.store;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and how {@link S3Store} reaches its bucket. Credentials: {@code accessKeyId} and {@code secretAccessKey} when
 * both are set, else the AWS SDK's default chain (the environment's {@code AWS_ACCESS_KEY_ID} and
 * {@code AWS_SECRET_ACCESS_KEY}, profiles, instance roles).
 *
 * @param endpoint null for AWS itself; any S3-compatible server otherwise (MinIO, Ceph, S3Mock)
 * @param prefix   prepended with a {@code /} to every key; empty for none
 * @param pathStyle {@code http://host/bucket/key} instead of {@code http://bucket.host/key} (most non-AWS servers)
 * @param timeout  the whole of one call, retries included
 */
public record S3Settings(
        URI endpoint,
        String region,
        String bucket,
        String prefix,
        boolean pathStyle,
        String accessKeyId,
        String secretAccessKey,
        Duration timeout) {
    public S3Settings {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(bucket, "bucket");
        prefix = prefix == null ? "" : prefix.replaceAll("^/+|/+$", "");
        Objects.requireNonNull(timeout, "timeout");
        if ((accessKeyId == null) != (secretAccessKey == null)) {
            throw new IllegalArgumentException("accessKeyId and secretAccessKey: set both or neither");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be > 0, was " + timeout);
        }
    }

    @Override
    public String toString() { // never the secret
        return "S3Settings[endpoint=" + endpoint + ", region=" + region + ", bucket=" + bucket + ", prefix=" + prefix
                + ", pathStyle=" + pathStyle + ", accessKeyId=" + accessKeyId + ", timeout=" + timeout + "]";
    }
}
