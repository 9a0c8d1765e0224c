package dev.logpipe.forwarder.internal.parse;

import dev.logpipe.record.JsonBuffer;

/**
 * Kubernetes names from a container log file's name, {@code <pod>_<namespace>_<container>-<id>.log} (the
 * kubelet's links in {@code /var/log/containers}): no API server needed. Pod and namespace names cannot
 * contain {@code _}, and the id is 64 hex digits, so the name splits unambiguously.
 */
public record KubernetesNames(String pod, String namespace, String container, String containerId) {
    /** The names in {@code fileName}, or null if it is not a container log file name. */
    public static KubernetesNames of(String fileName) {
        if (!fileName.endsWith(".log")) {
            return null;
        }
        String base = fileName.substring(0, fileName.length() - 4);
        int a = base.indexOf('_');
        int b = a < 0 ? -1 : base.indexOf('_', a + 1);
        int dash = base.lastIndexOf('-');
        if (a <= 0 || b <= a + 1 || dash <= b + 1 || base.indexOf('_', b + 1) >= 0) {
            return null;
        }
        String id = base.substring(dash + 1);
        if (id.length() != 64 || !id.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
            return null;
        }
        return new KubernetesNames(base.substring(0, a), base.substring(a + 1, b), base.substring(b + 1, dash), id);
    }

    /** The service a template over {pod}, {namespace}, {container} gives. */
    public String service(String template) {
        return template.replace("{pod}", pod).replace("{namespace}", namespace).replace("{container}", container);
    }

    /** The names as {@code ,"k8s.pod.name":...} pairs for the record's fields (OpenTelemetry's names). */
    public byte[] fieldsJson() {
        JsonBuffer b = new JsonBuffer(256);
        b.ascii(",\"k8s.pod.name\":")
                .string(pod)
                .ascii(",\"k8s.namespace.name\":")
                .string(namespace)
                .ascii(",\"k8s.container.name\":")
                .string(container)
                .ascii(",\"container.id\":")
                .string(containerId);
        return b.toByteArray();
    }
}
