/** The query service's configuration as validated records, read from YAML with every error naming its key path. */
package dev.logpipe.query.config;
