/**
 * Live tail over Server-Sent Events: polls for new matching records, what each tail sent within its window, and its
 * events.
 */
package dev.logpipe.query.internal.tail;
