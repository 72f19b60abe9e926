/**
 * Access: who may use the bridge, and where a message goes. access.ts holds identities
 * (`platform:id`, the same person only on the same platform) and the access check (the global
 * list with its grants, then the route's lists, each refusal naming the setting that would allow
 * it); routing.ts picks the route and profile that serve a message (the restrictions of every
 * route naming that profile folded in) and loads each profile once; way-in.ts answers a person
 * not on the list with how to get in, a pairing code shown to them alone.
 */
export { actorOf, checkAccess, identityOf, isAdmin, onList, samePerson, type Actor } from './access.js';
export { createProfileCache, placeOf, routeMessage, routeWithProfile, type ProfileLoader } from './routing.js';
export { sendWayIn } from './way-in.js';
