package dev.logpipe.archive.store;

import dev.logpipe.archive.format.RangeSource;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Objects in an S3-compatible bucket through the AWS SDK for Java v2 (the JDK's HTTP client underneath). A put is one
 * PutObject (S3 makes it visible whole or not at all, with the SDK's CRC checksum checked by the server); a ranged
 * read is one GetObject with a {@code Range}. Every SDK failure (a 5xx after the SDK's retries, a timeout) is an
 * {@link IOException} naming the operation and the key.
 */
public final class S3Store implements ObjectStore {
    private final S3Settings settings;
    private final S3Client s3;

    public S3Store(S3Settings settings) {
        this.settings = settings;
        AwsCredentialsProvider credentials = settings.accessKeyId() != null
                ? StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(settings.accessKeyId(), settings.secretAccessKey()))
                : DefaultCredentialsProvider.builder().build();
        S3ClientBuilder b = S3Client.builder()
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(settings.pathStyle())
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(settings.timeout())
                        .socketTimeout(settings.timeout()))
                .overrideConfiguration(o -> o.apiCallTimeout(settings.timeout()));
        if (settings.endpoint() != null) {
            b.endpointOverride(settings.endpoint());
        }
        this.s3 = b.build();
    }

    private String objectKey(String key) {
        ObjectStore.checkKey(key);
        return settings.prefix().isEmpty() ? key : settings.prefix() + "/" + key;
    }

    @Override
    public void put(String key, Path file) throws IOException {
        try {
            s3.putObject(r -> r.bucket(settings.bucket()).key(objectKey(key)), RequestBody.fromFile(file));
        } catch (SdkException e) {
            throw failure("put", key, e);
        }
    }

    @Override
    public RangeSource open(String key) throws IOException {
        String k = objectKey(key);
        long size;
        try {
            size = s3.headObject(r -> r.bucket(settings.bucket()).key(k)).contentLength();
        } catch (NoSuchKeyException e) {
            throw new NoSuchFileException("no object " + key + " in " + location());
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new NoSuchFileException("no object " + key + " in " + location());
            }
            throw failure("head", key, e);
        } catch (SdkException e) {
            throw failure("head", key, e);
        }
        return new RangeSource() {
            @Override
            public long size() {
                return size;
            }

            @Override
            public byte[] read(long offset, int length) throws IOException {
                if (length == 0) {
                    return new byte[0];
                }
                ResponseBytes<GetObjectResponse> bytes;
                try {
                    bytes = s3.getObjectAsBytes(r ->
                            r.bucket(settings.bucket()).key(k).range("bytes=" + offset + "-" + (offset + length - 1)));
                } catch (SdkException e) {
                    throw failure("get " + offset + "+" + length + " of", key, e);
                }
                byte[] b = bytes.asByteArray();
                if (b.length != length) {
                    throw new IOException("get " + offset + "+" + length + " of " + key + " in " + location()
                            + " returned " + b.length + " bytes");
                }
                return b;
            }
        };
    }

    @Override
    public List<String> list(String prefix) throws IOException {
        String full = settings.prefix().isEmpty() ? prefix : settings.prefix() + "/" + prefix;
        int strip = full.length() - prefix.length();
        List<String> keys = new ArrayList<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(
                            r -> r.bucket(settings.bucket()).prefix(full))
                    .contents()) {
                keys.add(o.key().substring(strip));
            }
        } catch (SdkException e) {
            throw failure("list", prefix, e);
        }
        keys.sort(null);
        return keys;
    }

    @Override
    public boolean delete(String key) throws IOException {
        String k = objectKey(key);
        try {
            try {
                s3.headObject(r -> r.bucket(settings.bucket()).key(k));
            } catch (NoSuchKeyException e) {
                return false;
            } catch (S3Exception e) {
                if (e.statusCode() == 404) {
                    return false;
                }
                throw e;
            }
            s3.deleteObject(r -> r.bucket(settings.bucket()).key(k));
            return true;
        } catch (SdkException e) {
            throw failure("delete", key, e);
        }
    }

    @Override
    public String location() {
        return "s3://" + settings.bucket() + (settings.prefix().isEmpty() ? "" : "/" + settings.prefix())
                + (settings.endpoint() == null ? "" : " at " + settings.endpoint());
    }

    private IOException failure(String operation, String key, SdkException e) {
        return new IOException(operation + " " + key + " in " + location() + " failed: " + e.getMessage(), e);
    }

    @Override
    public void close() {
        s3.close();
    }
}
