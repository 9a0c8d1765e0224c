/**
 * The one credential check every logpipe API shares: the presented key ({@code PresentedKey}), its lookup ({@code
 * Credentials}) and the per-address limit on failed authentications ({@code AuthFailures}).
 */
package dev.logpipe.auth;
