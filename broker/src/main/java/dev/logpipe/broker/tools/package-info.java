/** The broker's command-line tools: {@code logpipe topics} (list, describe, create) and {@code logpipe consume}. */
package dev.logpipe.broker.tools;
