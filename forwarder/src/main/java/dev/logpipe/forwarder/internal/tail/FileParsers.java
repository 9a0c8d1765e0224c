package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.config.ForwarderConfig;
import dev.logpipe.forwarder.internal.parse.ContainerLines;
import dev.logpipe.forwarder.internal.parse.CriLines;
import dev.logpipe.forwarder.internal.parse.DockerLines;
import dev.logpipe.forwarder.internal.parse.KubernetesNames;
import dev.logpipe.forwarder.internal.parse.LineParser;
import dev.logpipe.forwarder.internal.parse.MultilineParser;
import dev.logpipe.forwarder.internal.parse.Parser;
import java.nio.file.Path;

/**
 * What each file of a source gets to turn its lines into records, from the source's parser (its own or the
 * top-level one): a container decoder (cri, docker) or none, the line or multiline parser, how the records are
 * read (JSON, logfmt or text), and, for container log files, the Kubernetes names of its file name.
 */
final class FileParsers {
    private final ForwarderConfig.Parser config;
    private final LineContent content;
    private final String host;

    /** @param host the forwarder's host name, which every record carries */
    FileParsers(ForwarderConfig.Parser config, String host) {
        this.config = config;
        this.host = host;
        this.content = config.structured() ? new LineContent(config.content(), config.keys()) : null;
    }

    /** How the records are read: JSON or logfmt (the same instance for every file), or null for plain text. */
    LineContent content() {
        return content;
    }

    private Parser newParser() {
        ForwarderConfig.Parser p = config;
        return p.type() == ForwarderConfig.ParserType.MULTILINE
                ? new MultilineParser(
                        p.multiline().headerPattern(),
                        p.flushInterval(),
                        p.maxRecordBytes(),
                        p.multiline().maxLines())
                : new LineParser();
    }

    /** Null unless the format is cri or docker. */
    private ContainerLines newContainerLines() {
        return switch (config.format()) {
            case CRI -> new CriLines(config.maxRecordBytes());
            case DOCKER -> new DockerLines(config.maxRecordBytes());
            default -> null;
        };
    }

    /** How the file at {@code path} of a source with service {@code sourceService} (or null) becomes records. */
    FileDecoding forFile(String path, String sourceService) {
        KubernetesNames k8s = kubernetes(path);
        String service = service(sourceService, k8s);
        Parser parser = newParser();
        ContainerLines container = newContainerLines();
        return new FileDecoding(config.maxRecordBytes(), container, parser, content, k8s, host, service);
    }

    /** The names in the file's name when Kubernetes names are on and it is a container log file name, else null. */
    private KubernetesNames kubernetes(String path) {
        if (!config.kubernetes().enabled()) {
            return null;
        }
        Path name = Path.of(path).getFileName();
        return name == null ? null : KubernetesNames.of(name.toString());
    }

    /** The service for a file: the source's own, else the Kubernetes rule's, else none. */
    private String service(String sourceService, KubernetesNames k8s) {
        if (sourceService != null || k8s == null || config.kubernetes().service() == null) {
            return sourceService;
        }
        return k8s.service(config.kubernetes().service());
    }
}
