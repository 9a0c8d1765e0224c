/** The names and kinds of a record document's fields, in one place for the indexer and the query service. */
package dev.logpipe.index.schema;
