/** The web UI: its static files and the Jetty handler that serves them, for the standalone and logpipe query alike. */
package dev.logpipe.ui;
