picks: 1=chiara 8=chiara 64=chiara_loglane 512=chiara_loglane 4096=chiara_loglane 
