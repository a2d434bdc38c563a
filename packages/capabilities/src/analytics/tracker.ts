/**
 * The tracker a site embeds: `<script defer src="https://gateway/a/script.js" data-id="<ingestion id>">`.
 * It sends a page view on load and offers `window.agw(name, properties)` for custom events, with
 * navigator.sendBeacon (survives the page closing) as text/plain, which needs no CORS preflight; fetch
 * with keepalive where sendBeacon is missing or refuses. No cookies, no storage, no identifiers.
 */
export const TRACKER_SCRIPT = `(function(){var s=document.currentScript;if(!s)return;var id=s.getAttribute('data-id'),
e=s.src.replace(/\\/a\\/script\\.js.*$/,'/a/events');function send(n,p){var b=JSON.stringify({ingestion_id:id,name:n,
url:location.href,referrer:document.referrer||null,properties:p||{}});if(navigator.sendBeacon&&navigator.sendBeacon(e,
new Blob([b],{type:'text/plain'})))return;fetch(e,{method:'POST',body:b,keepalive:true,headers:{'content-type':
'text/plain'}}).catch(function(){})}window.agw=send;send('pageview')})();
`;
