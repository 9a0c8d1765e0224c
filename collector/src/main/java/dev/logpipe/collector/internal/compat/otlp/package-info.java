/** OTLP/HTTP logs (protobuf and JSON): one record per {@code LogRecord}, mapped from OTLP's log data model. */
package dev.logpipe.collector.internal.compat.otlp;
