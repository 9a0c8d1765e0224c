package dev.logpipe.forwarder.internal.tail;

import dev.logpipe.forwarder.internal.parse.ContainerLines;
import dev.logpipe.forwarder.internal.parse.KubernetesNames;
import dev.logpipe.forwarder.internal.parse.Parser;

/**
 * How one open file's bytes become records, chosen when it is opened (by {@link FileParsers#forFile}), and what its
 * records say of where they come from.
 *
 * @param maxLineBytes the longest line kept whole (longer ones are cut, and counted)
 * @param container    the container runtime's line decoder (cri, docker), or null
 * @param parser       the file's own line or multiline parser
 * @param content      how the records are read (JSON, logfmt), or null for plain text
 * @param kubernetes   the Kubernetes names in the file's first name, or null
 * @param host         the forwarder's host name
 * @param service      the file's service, or null
 */
record FileDecoding(
        int maxLineBytes,
        ContainerLines container,
        Parser parser,
        LineContent content,
        KubernetesNames kubernetes,
        String host,
        String service) {}
