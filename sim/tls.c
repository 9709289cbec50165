/*
 * The --https certificates: a throwaway CA (its certificate goes to
 * DIR/ca.pem for clients to trust) and a server certificate for 127.0.0.1
 * and localhost signed by it, made with OpenSSL libcrypto at every start.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "sim.h"

#define CERT_DAYS 3650L

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return 0;
	ok = X509_add_ext(cert, ext, -1);
	X509_EXTENSION_free(ext);
	return ok;
}

/* A certificate for key, signed by issuer_key (issuer NULL: self-signed). */
static X509 *make_cert(EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key, const char *cn, long serial)
{
	X509 *cert = X509_new();
	X509_NAME *name;
	int ok, ca = issuer == NULL;

	if (!cert)
		return NULL;
	name = X509_get_subject_name(cert);
	ok = X509_set_version(cert, 2) && ASN1_INTEGER_set(X509_get_serialNumber(cert), serial) &&
	     X509_gmtime_adj(X509_getm_notBefore(cert), -3600) &&
	     X509_gmtime_adj(X509_getm_notAfter(cert), CERT_DAYS * 86400) && X509_set_pubkey(cert, key) &&
	     X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"bringup-sim", -1, -1,
					0) &&
	     X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0) &&
	     X509_set_issuer_name(cert, ca ? name : X509_get_subject_name(issuer));
	if (ok && ca)
		ok = add_ext(cert, cert, NID_basic_constraints, "critical,CA:TRUE") &&
		     add_ext(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign") &&
		     add_ext(cert, cert, NID_subject_key_identifier, "hash");
	if (ok && !ca)
		ok = add_ext(cert, issuer, NID_basic_constraints, "critical,CA:FALSE") &&
		     add_ext(cert, issuer, NID_key_usage, "critical,digitalSignature,keyEncipherment") &&
		     add_ext(cert, issuer, NID_ext_key_usage, "serverAuth") &&
		     add_ext(cert, issuer, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1") &&
		     add_ext(cert, issuer, NID_authority_key_identifier, "keyid:always");
	if (ok)
		ok = X509_sign(cert, ca ? key : issuer_key, EVP_sha256()) > 0;
	if (!ok) {
		X509_free(cert);
		return NULL;
	}
	return cert;
}

/* PEM of a key (key != NULL) or a certificate, as a malloc'ed string. */
static char *to_pem(EVP_PKEY *key, X509 *cert)
{
	BIO *bio = BIO_new(BIO_s_mem());
	char *data, *out = NULL;
	long len;
	int ok;

	if (!bio)
		return NULL;
	ok = key ? PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)
		 : PEM_write_bio_X509(bio, cert);
	len = BIO_get_mem_data(bio, &data);
	if (ok && len > 0)
		out = br_xstrndup(data, (size_t)len);
	BIO_free(bio);
	return out;
}

int sim_tls_make(const char *ca_path, char **ret_key_pem, char **ret_cert_pem, struct br_err *err)
{
	EVP_PKEY *ca_key = EVP_EC_gen("P-256"), *key = EVP_EC_gen("P-256");
	X509 *ca = NULL, *cert = NULL;
	char *ca_pem = NULL, *key_pem = NULL, *cert_pem = NULL;
	int rc;

	if (ca_key && key)
		ca = make_cert(ca_key, NULL, NULL, "bringup-sim CA", 1);
	if (ca)
		cert = make_cert(key, ca, ca_key, "127.0.0.1", 2);
	if (cert) {
		ca_pem = to_pem(NULL, ca);
		key_pem = to_pem(key, NULL);
		cert_pem = to_pem(NULL, cert);
	}
	if (!ca_pem || !key_pem || !cert_pem) {
		rc = br_errf(err, BR_E_UNSUPPORTED, "could not make the TLS certificates with OpenSSL");
		goto out;
	}
	rc = br_write_file(ca_path, ca_pem, strlen(ca_pem), err);
	if (rc)
		goto out;
	*ret_key_pem = key_pem;
	*ret_cert_pem = cert_pem;
	key_pem = cert_pem = NULL;
out:
	if (key_pem)
		br_secret_free(key_pem);
	free(cert_pem);
	free(ca_pem);
	X509_free(cert);
	X509_free(ca);
	EVP_PKEY_free(key);
	EVP_PKEY_free(ca_key);
	return rc;
}
