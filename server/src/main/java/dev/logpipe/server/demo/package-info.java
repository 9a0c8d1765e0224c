/** {@code standalone --demo}: realistic, growing log files shipped to the standalone by in-process forwarders. */
package dev.logpipe.server.demo;
