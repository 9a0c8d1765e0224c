/**
 * The OpenSearch storage engine behind the index seam: index names and template, documents over {@code _bulk}, the
 * query DSL, the store's write side and read side.
 */
package dev.logpipe.index.opensearch;
