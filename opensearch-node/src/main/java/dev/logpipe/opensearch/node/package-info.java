/**
 * For tests and benchmarks only: a real OpenSearch 2.19 node in this JVM ({@code OpenSearchNode}) and its launcher in a
 * child JVM ({@code OpenSearchProcess}).
 */
package dev.logpipe.opensearch.node;
